// An erasure whose purge fails (ClickHouse unreachable for a moment, as in the drill's ClickHouse fault) is
// tried again by the running projector after ERASURE_RETRY_MS, not only at its next start (A12): the receipt
// comes without a restart, and no row of the person is left. And a request read again (the follower reads the
// erasures topic from its start after a group rejoin) is not purged again: one receipt, its time unchanged.
// In a batch of requests (A31), one that cannot be handled is retried alone, and the others go on. Behind a
// ClickHouse mutation that never ends (H85), each attempt gives up after MUTATION_WAIT_MS without queueing
// deletes behind it, the receipt comes once it is killed, and the worker's stop ends an attempt's wait.
import t, { type Test } from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import { startServices, waitUntil, type TestServices } from '../support/harness.js'
import { openPrivacy } from '../../scripts/admin-context.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { createEventLogClients } from '../../services/shared/src/event-log.js'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { ErasureWorker, type ErasureWorkerDeps } from '../../services/projector/src/privacy/erasure-worker.js'
import { Metrics } from '../../services/projector/src/consume/metrics.js'
import { readTopic } from '../support/read-topic.js'
import type { ErasureRecord } from '../../schemas/records.js'
import { deleteMutations, overriding, stuckMutation } from '../support/clickhouse-helpers.js'

/** The real client, whose first `failures` DELETE mutations are refused as an unreachable server's are. */
function failingDeletes(ch: ClickHouseClient, failures: number): { ch: ClickHouseClient; refused: () => number } {
  let refused = 0
  const command: ClickHouseClient['command'] = async (p) => {
    if (refused < failures && /\bDELETE\b/.test(p.query)) {
      refused++
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18123 (injected)'), { code: 'ECONNREFUSED' })
    }
    return ch.command(p)
  }
  return { ch: overriding(ch, 'command', command), refused: () => refused }
}

/** The real client, counting the queries that look at system.mutations (a purge's wait for them). */
function mutationLooks(ch: ClickHouseClient): { ch: ClickHouseClient; looks: () => number } {
  let looks = 0
  const query = ((p: Parameters<ClickHouseClient['query']>[0]) => {
    if (p.query.includes('system.mutations')) looks++
    return ch.query(p)
  }) as ClickHouseClient['query']
  return { ch: overriding(ch, 'query', query), looks: () => looks }
}

/** A stack (sealing off: these workers are built without the keys holder that opens a sealed request's
 *  user id, A22) holding one event of each of `people`, whose projector is stopped: the test's own worker is
 *  the only one to purge. */
async function storedPeople(t: Test, people: readonly string[]): Promise<{ s: TestServices; accountId: string }> {
  const s = await startServices(t, { env: { PRIVACY_ENCRYPT: 'false' } })
  const { key, accountId } = await s.createKey({ type: 'live' })
  for (const id of people)
    t.equal((await s.post('/v1/event', { event: 'page_viewed', user: { id } }, { key })).status, 200)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events`, people.length)
  await s.projector!.close()
  return { s, accountId }
}

/** This test's own erasure worker over the stack of `s` (whose projector it replaces), started, with `deps`
 *  in place of the defaults; its Kafka clients and metrics are returned for the test to read. */
async function ownWorker(t: Test, s: TestServices, deps: Partial<ErasureWorkerDeps> & { retryMs: number }) {
  const log = createLogger((process.env.TEST_LOG_LEVEL ?? 'error') as 'error')
  const cfg = loadProjectorConfig(s.env)
  const { kafka, codec } = createEventLogClients(cfg, 'erasure-worker-test', log)
  await codec.register(cfg.topics)
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 5 })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const metrics = new Metrics({ processMetrics: false })
  const worker = new ErasureWorker({
    metrics,
    kafka,
    codec,
    producer,
    ch: s.ch,
    database: s.database,
    topic: s.topics.erasures!,
    settled: async () => undefined,
    closeLiveStreams: () => undefined,
    log,
    ...deps,
  })
  await worker.start()
  t.teardown(() => worker.stop())
  return { worker, metrics, kafka, codec }
}

t.test('a purge that failed is tried again while the projector runs', async (t) => {
  // Sealing off: this test's worker is built without the keys holder that opens a sealed request's user id
  // (A22); its retry is the same for either kind of request.
  const s = await startServices(t, { env: { PRIVACY_ENCRYPT: 'false' } })
  const { key, accountId } = await s.createKey({ type: 'live' })
  const user = 'retried-user'
  for (let i = 0; i < 3; i++)
    t.equal(
      (await s.post('/v1/event', { event: 'page_viewed', user: { id: user }, properties: { i } }, { key })).status,
      200,
    )
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events WHERE user_id = '${user}'`, 3)
  // The projector's own worker would purge at once: this test's worker, with a failing client, is the only one.
  await s.projector!.close()

  const faulty = failingDeletes(s.ch, 1)
  const { worker, metrics, kafka, codec } = await ownWorker(t, s, { ch: faulty.ch, retryMs: 300 })

  const { privacy, close } = await openPrivacy(s.env)
  t.teardown(close)
  const request = await privacy.requestErasure({ accountId, userId: user, requestedBy: 'test', suppress: false })
  const receipt = await privacy.purged(accountId, user, request.erasure_id, 30_000)
  t.equal(faulty.refused(), 1, 'the first purge attempt failed')
  t.ok(receipt?.projections_purged_at, 'the receipt came without a restart')
  // The step is counted once its receipt's write is acknowledged, which a reader may see first.
  const timed = /^projector_erasure_step_seconds_count\{step="projections_purged"\} 1$/m
  await waitUntil(async () => timed.test(await metrics.render()), 10_000, 'the purge timed once')
  t.match(await metrics.render(), /^projector_erasure_attempts_failed_total 1$/m, 'the failed attempt is counted')
  t.same(await s.query(`SELECT 1 FROM ${s.database}.events WHERE user_id = '${user}'`), [], 'no row of the person')

  // What the follower hands the worker after a rejoin: the request, read again from the topic's start.
  worker.apply(request)
  await worker.idle()
  const receipts = async () => {
    const out: number[] = []
    for (const r of await readTopic(kafka, s.topics.erasures!)) {
      const e =
        r.value && ((await codec.decode(r.value)).value as { erasure_id: string; projections_purged_at: number | null })
      if (e && e.erasure_id === request.erasure_id && e.projections_purged_at !== null)
        out.push(e.projections_purged_at)
    }
    return out
  }
  t.same(await receipts(), [receipt!.projections_purged_at], 'the request read again is not purged again')
})

t.test(
  'in a batch of requests, one whose user id cannot be opened is retried alone; the others are purged',
  async (t) => {
    const { s, accountId } = await storedPeople(t, ['kept-going', 'unopenable'])

    const opened: string[] = []
    const { worker, metrics } = await ownWorker(t, s, {
      retryMs: 60_000,
      // A22: a pseudonymous request's user id comes from its own key; this one's is not there.
      userIdOf: async (e) => {
        opened.push(e.erasure_id)
        return undefined
      },
    })

    const now = Date.now()
    const request = (erasure_id: string, user_id: string, pseudonym: string | null): ErasureRecord => ({
      erasure_id,
      account_id: accountId,
      user_id,
      pseudonym,
      requested_by: 'test',
      requested_at: now,
      suppress: false,
      projections_purged_at: null,
      history_unreadable_at: null,
      disk_gone_at: null,
      updated_at: now,
    })
    // Both handed over before the worker's drain runs: one batch.
    worker.apply(request('e-unopenable', '', '0'.repeat(32)))
    worker.apply(request('e-kept-going', 'kept-going', null))
    await worker.idle()
    t.same(opened, ['e-unopenable'], 'the pseudonymous request asked for its user id')
    t.same(
      await s.query(`SELECT user_id FROM ${s.database}.events FINAL ORDER BY user_id`),
      [{ user_id: 'unopenable' }],
      'the other request of the batch was purged',
    )
    t.match(await metrics.render(), /^projector_erasure_attempts_failed_total 1$/m, 'the one that failed is counted')
    t.match(
      await metrics.render(),
      /^projector_erasure_step_seconds_count\{step="projections_purged"\} 1$/m,
      'one purge done',
    )
  },
)

t.test(
  'an erasure behind a mutation that never ends: retried without queueing deletes, purged once it is killed',
  async (t) => {
    const { s, accountId } = await storedPeople(t, ['held', 'waiting'])
    const stuck = await stuckMutation(s.ch, s.database)

    const first = await ownWorker(t, s, { retryMs: 200, purge: { pollMs: 50, mutationWaitMs: 500 } })
    const { privacy, close } = await openPrivacy(s.env)
    t.teardown(close)
    const held = await privacy.requestErasure({ accountId, userId: 'held', requestedBy: 'test', suppress: false })
    const failed = /^projector_erasure_attempts_failed_total ([0-9]+)$/m
    await waitUntil(
      async () => Number(failed.exec(await first.metrics.render())?.[1] ?? 0) >= 2,
      30_000,
      'two attempts failed',
    )
    t.equal(await deleteMutations(s.ch, s.database), 0, 'no attempt queued a delete behind the stuck mutation')

    await s.ch.command({ query: `KILL MUTATION WHERE database = '${s.database}' AND mutation_id = '${stuck}'` })
    const receipt = await privacy.purged(accountId, 'held', held.erasure_id, 30_000)
    t.ok(receipt?.projections_purged_at, 'the receipt came once the mutation was killed')
    t.same(
      await s.query(`SELECT user_id FROM ${s.database}.events`),
      [{ user_id: 'waiting' }],
      'no row of the person, the other kept',
    )

    // A worker whose attempt waits minutes (the default) is stopped: the stop ends the wait.
    await first.worker.stop()
    await stuckMutation(s.ch, s.database)
    const watched = mutationLooks(s.ch)
    const second = await ownWorker(t, s, { ch: watched.ch, retryMs: 200, purge: { pollMs: 50 } })
    await privacy.requestErasure({ accountId, userId: 'waiting', requestedBy: 'test', suppress: false })
    await waitUntil(async () => watched.looks() > 3, 30_000, 'the second worker waits for the mutation')
    await second.worker.stop()
    t.pass('the stop returned while the attempt waited')
    t.match(
      await second.metrics.render(),
      /^projector_erasure_attempts_failed_total 0$/m,
      'a stop is not a failed attempt',
    )
  },
)
