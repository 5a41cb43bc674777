// Erasure of one person (A12, docs/privacy.md) against the real stack: a person's events and
// identifies carry a unique marker in every personal field; after the erasure no table or view
// returns it (FINAL or not) within 60 s, the receipt says when, other people's rows and the monthly
// usage counts stay, and replays (into a fresh database and into the live tables) bring nothing back.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { startServices, waitUntil } from '../support/harness.js'
import { billedEvents, waitForBilled } from '../support/usage.js'
import { openPrivacy } from '../../scripts/admin-context.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { runReplayCommand } from '../../services/projector/src/replay/index.js'
import { scanForMarker } from './scan.js'
import { metricValue } from '../support/metrics-text.js'

/** The bound: within 60 s of the request no row of the person is returned. */
const PURGE_BOUND_MS = 60_000

const personEvent = (marker: string, user: string, i: number) => ({
  event: 'page_viewed',
  user: { id: user, email: `${marker}@example.test`, traits: { name: `${marker} name` } },
  properties: { note: `${marker} property`, i },
  context: { page: { url: `https://example.test/${marker}` } },
})

t.test('an erased person is gone from every projection, and replays do not bring them back', async (t) => {
  const s = await startServices(t)
  const { key, accountId } = await s.createKey({ type: 'live' })
  const marker = `mk${randomBytes(6).toString('hex')}`
  const user = `${marker}-user`
  const db = s.database

  for (let i = 0; i < 3; i++) t.equal((await s.post('/v1/event', personEvent(marker, user, i), { key })).status, 200)
  const identify = {
    type: 'identify',
    user: { id: user, email: `${marker}@example.test` },
    traits: { plan: `${marker} plan` },
    context: { ip: marker },
  }
  t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events: [identify] }, { key })).status, 200)
  t.equal(
    (
      await s.post(
        '/v1/event',
        { event: 'page_viewed', user: { id: 'keeper', traits: { name: 'Kim' } }, properties: { note: 'kept' } },
        { key },
      )
    ).status,
    200,
  )
  await s.waitForRows(`SELECT 1 FROM ${db}.events WHERE user_id = '${user}'`, 3)
  await s.waitForRows(`SELECT 1 FROM ${db}.identifies WHERE user_id = '${user}'`, 1)
  await s.waitForRows(`SELECT 1 FROM ${db}.events WHERE user_id = 'keeper'`, 1)
  // The usage counters are a separate insert from the rows (H5): wait for them too.
  await waitForBilled(s, db, accountId, 4, 'usage counts the four events')
  t.equal(await billedEvents(s, db, accountId), 4, 'four events counted before the erasure')
  t.ok((await scanForMarker(s.ch, db, marker)).length > 0, 'the marker is found before the erasure (the scan can fail)')

  const { privacy, close } = await openPrivacy(s.env)
  t.teardown(close)
  const asked = Date.now()
  const request = await privacy.requestErasure({ accountId, userId: user, requestedBy: 'test', suppress: false })
  const receipt = await privacy.purged(accountId, user, request.erasure_id, PURGE_BOUND_MS)
  t.ok(receipt?.projections_purged_at, 'the receipt says the projections are purged')
  t.ok(Date.now() - asked < PURGE_BOUND_MS, 'within 60 s')
  t.comment(`request to receipt: ${receipt!.projections_purged_at! - request.requested_at} ms`)
  // What an operator graphs (consume/metrics.ts): the step's time from the request, and nothing pending.
  const metric = async (series: string) => metricValue(await (await fetch(`${s.projectorUrl}/metrics`)).text(), series)
  // The step is counted once its receipt's write is acknowledged, which a reader may see first.
  await waitUntil(
    async () => (await metric('projector_erasure_step_seconds_count{step="projections_purged"}')) === 1,
    10_000,
    'one purge timed',
  )
  t.equal(await metric('projector_erasure_step_seconds_bucket{le="60",step="projections_purged"}'), 1, 'within 60 s')
  t.equal(await metric('projector_erasures_pending{step="projections_purged"}'), 0, 'no purge pending')
  await waitUntil(
    async () => (await metric('projector_erasure_step_seconds_count{step="history_unreadable"}')) === 1,
    30_000,
    "the person's data keys tombstoned, timed",
  )
  t.equal(await metric('projector_erasures_pending{step="history_unreadable"}'), 0, 'no tombstoning pending')
  t.ok((await metric('projector_data_keys_held')) > 0, 'the data keys held are shown')
  t.equal(await metric('projector_erasure_attempts_failed_total'), 0, 'no attempt failed')
  t.same(await scanForMarker(s.ch, db, marker), [], 'no table or view returns the marker, FINAL or not')
  t.same(await s.query(`SELECT user_id FROM ${db}.users_view WHERE user_id = '${user}'`), [], 'no profile')
  t.equal((await s.query(`SELECT 1 FROM ${db}.events WHERE user_id = 'keeper'`)).length, 1, 'other people stay')
  t.equal(await billedEvents(s, db, accountId), 4, 'the erased events still count (usage keeps counts, not identities)')

  const cfg = loadProjectorConfig(s.env)
  const io = { log: createLogger('error') }
  const fresh = `${db}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const topics: Array<'events' | 'identifies'> = ['events', 'identifies']
  await runReplayCommand(
    cfg,
    { topics, from: { kind: 'beginning' }, target: 'fresh', database: fresh, swap: false, dlq: true, json: false },
    io,
  )
  t.same(
    await scanForMarker(s.ch, fresh, marker),
    [],
    'a replay into a fresh database brings nothing of the person back',
  )
  t.equal(
    (await s.query(`SELECT 1 FROM ${fresh}.events WHERE user_id = 'keeper'`)).length,
    1,
    'and rebuilds everyone else',
  )
  t.equal(await billedEvents(s, fresh, accountId), 4, 'with the same usage counts')

  await runReplayCommand(
    cfg,
    { topics, from: { kind: 'beginning' }, target: 'live', swap: false, dlq: true, json: false },
    io,
  )
  t.same(await scanForMarker(s.ch, db, marker), [], 'a replay into the live tables brings nothing back either')
  t.equal(await billedEvents(s, db, accountId), 4, 'and counts the same')
})

t.test('the live feed is cut for the account when one of its users is erased', async (t) => {
  const s = await startServices(t)
  const { accountId } = await s.createKey({ type: 'live' })
  const hub = s.projector!.deps.hub
  const closed: string[] = []
  hub.subscribe({ accountId, push: () => true, close: (reason) => closed.push(reason) })
  const { privacy, close } = await openPrivacy(s.env)
  t.teardown(close)
  const r = await privacy.requestErasure({ accountId, userId: 'someone', requestedBy: 'test', suppress: false })
  await privacy.purged(accountId, 'someone', r.erasure_id, PURGE_BOUND_MS)
  await waitUntil(() => closed.length === 1, 10_000, 'the stream is closed')
  t.equal(hub.subscribers, 0, 'no stream of the account holds items any more')
})
