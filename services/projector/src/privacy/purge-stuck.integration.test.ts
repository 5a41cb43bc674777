// A purge behind a mutation that never ends (H85). ClickHouse applies a table's mutations in order, so one
// whose expression throws on some row holds every later one of its table for ever, and the purge, which
// waited for system.mutations without a bound, never ended on either version: the erasure, and the
// projector's stop, waited for ever. Now the purge waits at most MUTATION_WAIT_MS before it deletes, queues
// nothing behind a pending mutation, names it in its error, and a signal ends the wait. On both versions
// (test/support/clickhouse-versions.ts).
import t, { type Test } from 'tap'
import { deleteMutations, queryRows, stuckMutation } from '../../../../test/support/clickhouse-helpers.js'
import { onBothVersions, type VersionedDatabase } from '../../../../test/support/clickhouse-versions.js'
import { MutationsNotDoneError } from '../clickhouse/mutation-places.js'
import { purgePeople } from './purge.js'

const ACCOUNT = 'acc_stuck'
const ERASED = { account_id: ACCOUNT, user_id: 'erased' }

async function cases(t: Test, { client, database }: VersionedDatabase): Promise<void> {
  const now = Date.now()
  const rows = ['erased', 'erased', 'kept'].map((user_id, i) => ({
    event_id: `stuck-${i}`,
    account_id: ACCOUNT,
    environment: 'live',
    event: 'opened',
    user_id,
    timestamp: Math.floor(now / 1000) - i,
    received_at: Math.floor(now / 1000),
  }))
  await client.insert({ table: `${database}.events`, values: rows, format: 'JSONEachRow' })
  const stuck = await stuckMutation(client, database)

  const err = await purgePeople(client, database, [ERASED], { pollMs: 50, mutationWaitMs: 1_000 }).then(
    () => undefined,
    (e: unknown) => e,
  )
  t.ok(err instanceof MutationsNotDoneError, 'the purge gives up after its wait')
  const e = err as MutationsNotDoneError
  t.match(e, { code: 'MUTATIONS_NOT_DONE', retriable: true })
  t.same(
    e.pending.map((m) => [m.table, m.mutation_id]),
    [['events', stuck]],
    'it names the mutation it waited for',
  )
  t.match(e.message, /events .*throwIf/, 'its message says which table and what the mutation does')
  t.equal(await deleteMutations(client, database), 0, 'no delete was queued behind the stuck mutation')

  const stop = new AbortController()
  const waiting = purgePeople(client, database, [ERASED], { pollMs: 50, signal: stop.signal })
  setTimeout(() => stop.abort(), 300)
  await t.rejects(waiting, { name: 'AbortError' }, 'a signal ends the wait (the default wait is minutes)')

  // 18.16 has no KILL MUTATION (docs/privacy.md says what an operator does there instead).
  const [{ version }] = (await queryRows<{ version: string }>(client, 'SELECT version() AS version')) as [
    { version: string },
  ]
  if (version.startsWith('18.')) return
  await client.command({ query: `KILL MUTATION WHERE database = '${database}' AND mutation_id = '${stuck}'` })
  const result = await purgePeople(client, database, [ERASED], { pollMs: 50, mutationWaitMs: 60_000 })
  t.equal(result.found.events, 2, 'once the mutation is killed the purge goes through')
  t.same(
    await queryRows(client, `SELECT user_id FROM ${database}.events ORDER BY user_id`),
    [{ user_id: 'kept' }],
    'the person’s rows are gone, the other person’s kept',
  )
}

t.test('a purge behind a mutation that never ends', (t) => onBothVersions(t, 'purge_stuck', cases))
