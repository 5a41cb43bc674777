// A37: a replay into a fresh database fills its aggregating views' tables once, after its last insert. What
// the live projector built insert by insert (users, person_weeks, usage, groups, identity links) and what a
// fresh replay builds must read the same; the views are on again afterwards; a replay that stopped before
// its fill leaves a database the swap refuses and the next replay into it completes.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startServices, waitUntil, type TestServices } from '../support/harness.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { runReplayCommand, swapDatabases, type ReplayCommand } from '../../services/projector/src/replay/index.js'
import { createFreshDatabase } from '../../services/projector/src/replay/fresh.js'
import { DEFERRED_VIEWS_TABLE, DeferredViews } from '../../services/projector/src/replay/deferred-views.js'

/** What an analyst reads from each table a deferred view fills, for one account, in a fixed order. */
async function viewTables(s: TestServices, db: string, accountId: string) {
  const read = async (q: string) =>
    s.query<Record<string, unknown>>(q.replaceAll('{db}', db).replaceAll('{a}', accountId))
  return {
    users: await read(
      `SELECT user_id, email, first_seen_ms, last_seen_ms FROM {db}.users_view WHERE account_id = '{a}' ORDER BY user_id`,
    ),
    personWeeks: await read(
      `SELECT event, user_id, toString(week) AS week, toString(timestamp) AS ts FROM {db}.person_weeks FINAL WHERE account_id = '{a}' ORDER BY event, user_id, week`,
    ),
    usage: await read(
      `SELECT toString(month) AS month, environment, events, emails FROM {db}.usage_monthly_view WHERE account_id = '{a}' ORDER BY month, environment`,
    ),
    groups: await read(
      `SELECT group_id, traits, members FROM {db}.groups_view WHERE account_id = '{a}' ORDER BY group_id`,
    ),
    identities: await read(`SELECT id, person_id FROM {db}.identity_map WHERE account_id = '{a}' ORDER BY id`),
  }
}

async function materializedViews(s: TestServices, db: string): Promise<string[]> {
  const rows = await s.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = '${db}' AND engine = 'MaterializedView' ORDER BY name`,
  )
  return rows.map((r) => r.name)
}

async function hasRecord(s: TestServices, db: string): Promise<boolean> {
  const rows = await s.query<{ n: string }>(
    `SELECT count() AS n FROM system.tables WHERE database = '${db}' AND name = '${DEFERRED_VIEWS_TABLE}'`,
  )
  return Number(rows[0]!.n) > 0
}

t.test('a fresh replay fills the views once and reads as the live tables do', async (t) => {
  const s = await startServices(t, { env: { IP_REQUESTS_PER_MINUTE: '10000' } })
  const { key, accountId } = await s.createKey({ type: 'live', plan: 'orbit' })
  const basic = { authorization: 'Basic ' + Buffer.from(key + ':').toString('base64') }
  // Every view a replay defers gets rows: events of several persons and weeks, anonymous ids linked to users
  // by events and by identifies, emails, and group calls.
  const batch: Record<string, unknown>[] = []
  for (let i = 0; i < 30; i++) {
    const user = `u${i % 6}`
    batch.push({
      type: 'track',
      event: i % 2 ? 'page_opened' : 'item_bought',
      userId: user,
      anonymousId: i % 3 === 0 ? `anon-${i % 6}` : undefined,
      properties: { i },
      messageId: randomUUID(),
      timestamp: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
    })
  }
  batch.push(
    {
      type: 'identify',
      userId: 'u1',
      anonymousId: 'anon-id-1',
      traits: { email: 'u1@example.com' },
      messageId: randomUUID(),
    },
    { type: 'identify', userId: 'u2', traits: { email: 'u2@example.com' }, messageId: randomUUID() },
    { type: 'group', userId: 'u3', groupId: 'acme', traits: { name: 'Acme' }, messageId: randomUUID() },
    { type: 'group', userId: 'u4', groupId: 'acme', traits: { name: 'Acme Inc' }, messageId: randomUUID() },
  )
  const res = await s.post('/v1/batch', { batch }, { headers: basic })
  t.equal(res.status, 200, JSON.stringify(res.body))
  await waitUntil(
    async () => {
      const v = await viewTables(s, s.database, accountId)
      return (
        v.users.length === 6 &&
        v.groups.length === 1 &&
        v.groups[0]!.members === '2' &&
        v.identities.length === 3 &&
        v.usage.length > 0 &&
        v.users.filter((u) => u.email !== '').length === 2
      )
    },
    20_000,
    'every view of the live tables to be filled',
  )
  const live = await viewTables(s, s.database, accountId)
  t.equal(
    live.usage.reduce((n, u) => n + Number(u.events), 0),
    32,
    'usage counts the batch events: its tracks and group calls',
  )

  const cfg = loadProjectorConfig(s.env)
  const log = createLogger('error')
  const cmd: ReplayCommand = {
    topics: ['events', 'identifies'],
    from: { kind: 'beginning' },
    target: 'fresh',
    swap: false,
    dlq: true,
    json: false,
  }
  const fresh = `${s.database}_views`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const notes: string[] = []
  await runReplayCommand(cfg, { ...cmd, database: fresh }, { log, note: (l) => notes.push(l) })
  t.ok(
    notes.some((l) => /views filled once after the replay/.test(l)),
    'the replay says which views it fills after',
  )
  t.same(await viewTables(s, fresh, accountId), live, 'every view reads the same as in the live tables')
  t.same(await materializedViews(s, fresh), await materializedViews(s, s.database), 'the views are on again')
  t.notOk(await hasRecord(s, fresh), 'and the record of the dropped views is gone')

  // A replay that stopped after dropping the views and before filling them.
  const stopped = `${s.database}_stopped`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${stopped}` }))
  await createFreshDatabase(cfg.clickhouse, stopped, log)
  const dropped = await DeferredViews.defer(s.ch, stopped)
  t.ok(dropped.views.length >= 5, `views dropped: ${dropped.views.map((v) => v.name)}`)
  t.ok(await hasRecord(s, stopped), 'the database records what it dropped')
  await t.rejects(
    swapDatabases(s.ch, s.database, stopped, log),
    { code: 'SWAP_FAILED', message: /views its replay dropped/ },
    'the swap refuses a database whose views were not filled',
  )
  await runReplayCommand(cfg, { ...cmd, database: stopped }, { log })
  t.same(await viewTables(s, stopped, accountId), live, 'the next replay into it fills the views the first dropped')
  t.same(await materializedViews(s, stopped), await materializedViews(s, s.database), 'and creates them again')
  t.notOk(await hasRecord(s, stopped))
})
