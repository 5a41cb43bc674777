// Per-account retention (H60, docs/privacy.md) against the real stack, with an injected clock: an
// account that keeps one month of events has events older than that; after the retention job none of
// them is returned (FINAL or not), newer rows and other accounts' old rows stay, the monthly usage
// counts are unchanged, and a replay into a fresh database writes none of the old ones.
import t from 'tap'
import { Registry } from 'prom-client'
import { startServices } from '../support/harness.js'
import { billedEvents, waitForBilled } from '../support/usage.js'
import { openPrivacy } from '../../scripts/admin-context.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { parseReplayArgs, runReplayCommand } from '../../services/projector/src/replay/index.js'
import { AccountRetention } from '../../services/projector/src/retention/account-retention.js'
import { COUNTS_TABLES } from '../../services/shared/src/rollup/counts-tables.js'
import { loadRetention } from '../../services/shared/src/privacy/retention-log.js'
import { retentionCutoff } from '../../services/shared/src/privacy/retention.js'

const DAY = 86_400_000

t.test('an account keeping one month loses older rows from ClickHouse and from replays, not its usage', async (t) => {
  const s = await startServices(t)
  const kept = await s.createKey({ type: 'live' })
  const other = await s.createKey({ type: 'live' })
  const db = s.database
  // The injected clock: the job and the replay take their cutoffs at this instant, not at the wall clock.
  const now = Date.now()
  const cutoff = retentionCutoff(1, now)!
  const at = (ms: number) => new Date(ms).toISOString()
  const post = (key: string, user: string, timestamp: number) =>
    s.post('/v1/event', { event: 'opened', user: { id: user }, timestamp: at(timestamp) }, { key })
  for (const [user, ts] of [
    ['old', now - 70 * DAY],
    ['old', cutoff - 1000],
    ['new', cutoff + DAY],
    ['new', now - DAY],
  ] as const)
    t.equal((await post(kept.key, user, ts)).status, 200)
  t.equal((await post(other.key, 'theirs', now - 70 * DAY)).status, 200)
  const identify = { type: 'identify', user: { id: 'old' }, traits: { plan: 'p' }, timestamp: at(now - 40 * DAY) }
  t.equal((await s.post('/v1/events', { sent_at: at(Date.now()), events: [identify] }, { key: kept.key })).status, 200)
  await s.waitForRows(`SELECT 1 FROM ${db}.events`, 5)
  await s.waitForRows(`SELECT 1 FROM ${db}.identifies`, 1)

  await waitForBilled(s, db, kept.accountId, 4, 'usage counts the four events')
  // person_weeks is another materialized view of the events inserts, its part committed apart from usage's:
  // wait for the four events' weeks, each for its event and for "any event" (each event is in a week of its own).
  await s.waitForRows(
    `SELECT DISTINCT user_id, event, week FROM ${db}.person_weeks WHERE account_id = '${kept.accountId}'`,
    8,
  )
  const older = (database: string, table: string, final = '') =>
    s.query(
      `SELECT 1 FROM ${database}.${table} ${final} WHERE account_id = '${kept.accountId}' AND timestamp < toDateTime(${cutoff / 1000})`,
    )
  t.equal((await older(db, 'events')).length, 2, 'two events older than the cutoff before the job (the test can fail)')

  const { admin, close } = await openPrivacy(s.env)
  t.teardown(close)
  await admin.setRetention(kept.accountId, 1)
  const { kafka, codec } = s.projector!.deps
  const cfg = loadProjectorConfig(s.env)
  const log = createLogger('error')
  const rules = await loadRetention(kafka, codec, cfg.topics.accounts, log)
  t.equal(rules.cutoffOf(kept.accountId, now), cutoff, 'the retention is read from the accounts topic')

  const registry = new Registry()
  const run = await new AccountRetention(s.ch, db, rules, log, { now: () => now, pollMs: 50, registry }).runOnce()
  // The counts tables' hours go too when the recount has counted them by now (retention-counts' test, H82).
  const counts = new Set(COUNTS_TABLES.map((c) => c.table))
  t.same(
    run.removed.filter((r) => !counts.has(r.table)).map((r) => [r.table, r.rows]),
    [
      ['events', 2],
      ['identifies', 1],
      // The two events' weeks, each for its event and for "any event" (U23).
      ['person_weeks', 4],
    ],
    "the job deleted the expired events and identify, and their persons' weeks",
  )
  const metrics = await registry.metrics()
  const total = run.removed.reduce((n, r) => n + r.rows, 0)
  t.ok(total >= 7, 'seven rows and any counted hours')
  t.match(metrics, new RegExp(`^projector_retention_rows_removed ${total}$`, 'm'), 'the metrics say how many rows went')
  t.match(metrics, new RegExp(`^projector_retention_last_run_seconds ${now / 1000}$`, 'm'), 'and when')
  t.match(metrics, /^projector_retention_lag_seconds 0$/m, 'and how long ago, by the same clock')
  for (const table of ['events', 'identifies']) {
    t.same(await older(db, table), [], `no ${table} row older than the cutoff`)
    t.same(await older(db, table, 'FINAL'), [], `nor with FINAL (${table})`)
  }
  const users = await s.query<{ user_id: string }>(
    `SELECT user_id FROM ${db}.events WHERE account_id = '${kept.accountId}' ORDER BY timestamp`,
  )
  t.same(
    users.map((r) => r.user_id),
    ['new', 'new'],
    'the newer rows are intact',
  )
  t.equal(
    (await s.query(`SELECT 1 FROM ${db}.events WHERE account_id = '${other.accountId}'`)).length,
    1,
    'an account without a retention keeps its old rows',
  )
  t.equal(await billedEvents(s, db, kept.accountId), 4, 'usage still counts the deleted events (billing)')

  const fresh = `${db}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  // As an operator runs it: npm run replay -- --target fresh --database NAME
  const cmd = parseReplayArgs(['--target', 'fresh', '--database', fresh])
  if (cmd === 'help') throw new Error('unexpected usage answer')
  await runReplayCommand(cfg, cmd, { log, now: () => now })
  for (const table of ['events', 'identifies'])
    t.same(await older(fresh, table), [], `the replay wrote no old ${table}`)
  t.equal(
    (await s.query(`SELECT 1 FROM ${fresh}.events WHERE account_id = '${kept.accountId}'`)).length,
    2,
    'the replay wrote the newer events',
  )
  t.equal(
    (await s.query(`SELECT 1 FROM ${fresh}.events WHERE account_id = '${other.accountId}'`)).length,
    1,
    "and the other account's old one",
  )
  t.equal(await billedEvents(s, fresh, kept.accountId), 4, 'the replay counts the skipped events too')
})
