// Monthly usage counted by shards of event ids (docs/design.md H83) is the exact count of distinct ids, as the
// one set per month was: rows projected twice, an id in the legacy shard of migration 018 and projected again
// after it, stubs of erased persons' events (A12), the other account and month apart. On the current
// ClickHouse and on one 18.16 server (A10).
import t, { type Test } from 'tap'
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MIGRATIONS_DIR, migrate } from '../../schemas/clickhouse/migrate.js'
import { createTestDatabase } from '../support/clickhouse-helpers.js'
import { onBothVersions, type VersionedDatabase } from '../support/clickhouse-versions.js'
import { eventRow } from '../support/event-rows.js'
import { writeUsageStubs } from '../../services/projector/src/privacy/usage-stubs.js'
import {
  accountUsage,
  LEGACY_SHARD,
  monthlyLiveUsage,
  monthlyUsage,
} from '../../services/shared/src/usage/usage-query.js'

const MAY = Date.UTC(2024, 4, 13)
const JUNE = Date.UTC(2024, 5, 2)

t.test('the sum of the shards is the count of distinct ids', (t) => onBothVersions(t, 'usageshards', cases))

t.test('what was counted before migration 018 still counts, once, beside what is counted after it', async (t) => {
  const { client, database } = await createTestDatabase({ prefix: 'usage018', migrate: false, t })
  const before = await mkdtemp(join(tmpdir(), 'migrations-'))
  t.teardown(() => rm(before, { recursive: true, force: true }))
  for (const f of await readdir(MIGRATIONS_DIR))
    if (/^(00\d|01[0-7])_.*\.sql$/.test(f)) await cp(join(MIGRATIONS_DIR, f), join(before, f))
  await migrate(client, database, { dir: before })
  const insert = (eventIds: string[], ms: number) =>
    client.insert({
      table: `${database}.events`,
      values: eventIds.map((event_id, i) => eventRow({ event_id, account_id: 'acc_u', event: 'page', ms: ms + i })),
      format: 'JSONEachRow',
    })
  const ids = (from: number, to: number) => [...Array(to - from).keys()].map((i) => `e${from + i}`)
  await insert(ids(0, 100), MAY) // counted by usage_monthly, as before the migration
  const applied = await migrate(client, database)
  t.same(
    applied.applied.map((m) => m.version).filter((v) => v <= 18),
    [18],
    'migration 018 applied, and only the ones after it',
  )
  t.same(await accountUsage(client, database, 'acc_u', '2024-05'), { live: 100, test: 0, emails: 0 }, 'copied over')
  await insert(ids(50, 150), MAY) // half of them again (a replay), half new
  t.same(await accountUsage(client, database, 'acc_u', '2024-05'), { live: 150, test: 0, emails: 0 }, 'counted once')
  await insert(ids(150, 153), JUNE)
  t.same(await accountUsage(client, database, 'acc_u', '2024-06'), { live: 3, test: 0, emails: 0 }, 'a later month')
  const old = await client.query({
    query: `SELECT toString(uniqExactMerge(events_state)) AS n FROM ${database}.usage_monthly`,
    format: 'JSONEachRow',
  })
  t.same(await old.json(), [{ n: '100' }], 'usage_monthly is no longer written')
})

async function cases(t: Test, db: VersionedDatabase) {
  const { client, database } = db
  const ids = (prefix: string, n: number) => [...Array(n).keys()].map((i) => `${prefix}${i}`)
  const events = (account: string, eventIds: string[], ms: number, environment: 'live' | 'test' = 'live') =>
    eventIds.map((event_id, i) =>
      eventRow({ event_id, account_id: account, event: 'page', ms: ms + i, environment, user_id: `u${i % 7}` }),
    )
  const insert = (values: object[]) => client.insert({ table: `${database}.events`, values, format: 'JSONEachRow' })

  // acc_a: 200 ids over many shards, 60 of them projected twice; 15 test ids; 9 ids in June.
  await insert(events('acc_a', ids('a', 200), MAY))
  await insert(events('acc_a', ids('a', 60), MAY))
  await insert(events('acc_a', ids('t', 15), MAY, 'test'))
  await insert(events('acc_a', ids('j', 9), JUNE))
  const shards = await client.query({
    query: `SELECT uniqExact(shard) AS n FROM ${database}.usage_monthly_sharded WHERE account_id = 'acc_a'`,
    format: 'JSONEachRow',
  })
  const spread = Number((await shards.json<{ n: string }>())[0]!.n)
  t.ok(spread > 100, `acc_a's 284 ids are in ${spread} of the 256 shards`)
  t.same(await accountUsage(client, database, 'acc_a', '2024-05'), { live: 200, test: 15, emails: 0 })
  t.same(await accountUsage(client, database, 'acc_a', '2024-06'), { live: 9, test: 0, emails: 0 })

  // acc_b: what was counted before the shards (migration 018 copies it whole into shard 65535): l0..l29; then
  // l20..l49 projected after the migration. 50 distinct ids; the shards summed with the legacy set apart
  // would say 60.
  await client.command({
    query: `INSERT INTO ${database}.usage_monthly_sharded (account_id, month, environment, shard, events_state, emails_state)
SELECT 'acc_b', toDate('2024-05-01'), 'live', ${LEGACY_SHARD}, arrayReduce('uniqExactState', [${ids('l', 30)
      .map((id) => `'${id}'`)
      .join(', ')}]), arrayReduce('uniqExactState', emptyArrayString())`,
  })
  await insert(events('acc_b', ids('l', 50).slice(20), MAY))
  t.same(await accountUsage(client, database, 'acc_b', '2024-05'), { live: 50, test: 0, emails: 0 })

  // Stubs of an erased person's events (A12): five ids already counted and three not, written twice.
  const stubs = [...ids('a', 5), 'x1', 'x2', 'x3'].map((event_id) => ({
    account_id: 'acc_a',
    environment: 'live' as const,
    event_id,
    received_at: MAY,
  }))
  await writeUsageStubs(client, database, stubs)
  await writeUsageStubs(client, database, stubs)
  t.same(await accountUsage(client, database, 'acc_a', '2024-05'), { live: 203, test: 0 + 15, emails: 0 })

  // Every account at once (the ingest's reconciliation, H34), and the view the tests read.
  const all = await monthlyUsage(client, database, '2024-05')
  t.same(Object.fromEntries(all.live), { acc_a: 203, acc_b: 50 })
  t.same(Object.fromEntries(all.test), { acc_a: 15 })
  t.same(Object.fromEntries(await monthlyLiveUsage(client, database, '2024-05')), { acc_a: 203, acc_b: 50 })
  const view = await client.query({
    query: `SELECT account_id, toString(events) AS events FROM ${database}.usage_monthly_view WHERE month = toDate('2024-05-01') AND environment = 'live' ORDER BY account_id`,
    format: 'JSONEachRow',
  })
  t.same(await view.json(), [
    { account_id: 'acc_a', events: '203' },
    { account_id: 'acc_b', events: '50' },
  ])
}
