// A history import through ingest and the projector. ClickHouse refuses an INSERT over 100 partitions
// (error 252); the projector used to retry that batch for ever, and projection stopped for every
// account. Now every record is stored, other accounts' events after it are projected too, and a replay
// of the topics into a fresh database stores them all again (H26, H27).
import t from 'tap'
import { startServices } from '../support/harness.js'
import { billedEvents, waitForBilled } from '../support/usage.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { runReplayCommand, type ReplayCommand } from '../../services/projector/src/replay/index.js'
import { createLogger } from '../../services/shared/src/log.js'

// The 15th of the n-th month after January 1970, at noon UTC.
const month = (n: number) => new Date(Date.UTC(1970, n, 15, 12)).toISOString()
const items = (type: 'event' | 'identify', from: number) =>
  Array.from({ length: 100 }, (_, i) => ({
    type,
    ...(type === 'event' ? { name: 'imported' } : { traits: { n: from + i } }),
    user: { id: 'importer' },
    timestamp: month(from + i),
  }))

t.test('200 months of history in one batch of the projector are stored, and projection goes on', async (t) => {
  // Ingest alone first, so that the projector finds every record in the log and reads them in one batch.
  const s = await startServices(t, { projector: false })
  const { key, accountId } = await s.createKey({ type: 'live' })
  const sent_at = new Date().toISOString()
  for (const batch of [items('event', 0), items('event', 100), items('identify', 0), items('identify', 100)]) {
    const res = await s.post('/v1/events', { sent_at, events: batch }, { key })
    t.equal(res.status, 200)
    t.equal(res.body.data?.processed_count, 100)
  }
  await startServices(t, { ingest: false, suffix: s.suffix })
  const where = `account_id = '${accountId}'`
  await s.waitForRows(`SELECT event_id FROM ${s.database}.events FINAL WHERE ${where}`, 200, 60_000)
  await s.waitForRows(`SELECT event_id FROM ${s.database}.identifies FINAL WHERE ${where}`, 200, 60_000)
  await waitForBilled(s, s.database, accountId, 200, 'usage counts the import')
  t.equal(
    await billedEvents(s, s.database, accountId),
    200,
    'the import is billed once per event, in the month it was received',
  )
  const [range] = await s.query<{ months: string; first: string }>(
    `SELECT uniqExact(toYYYYMM(timestamp)) AS months, toString(min(timestamp)) AS first FROM ${s.database}.events WHERE ${where}`,
  )
  t.same(range, { months: '200', first: '1970-01-15 12:00:00' }, 'stored at their own times')

  // Another account's event after the import is projected: nothing is stuck.
  const other = await s.createKey({ type: 'live' })
  t.equal((await s.post('/v1/event', { event: 'after_import', user: { id: 'u1' } }, { key: other.key })).status, 200)
  await s.waitForRows(
    `SELECT event_id FROM ${s.database}.events WHERE account_id = '${other.accountId}' AND event = 'after_import'`,
    1,
    60_000,
  )

  // A replay writes through the same writer: it does not stall on the history either.
  const fresh = `${s.database}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const replay: ReplayCommand = {
    topics: ['events', 'identifies'],
    from: { kind: 'beginning' },
    target: 'fresh',
    database: fresh,
    swap: false,
    dlq: true,
    json: false,
  }
  const { summary } = await runReplayCommand(loadProjectorConfig(s.env), replay, { log: createLogger('error') })
  t.match(summary, { events: 201, identifies: 200, deadLettered: 0 })
  const [replayed] = await s.query<{ n: string }>(`SELECT count() AS n FROM ${fresh}.events FINAL WHERE ${where}`)
  t.equal(Number(replayed!.n), 200)
})
