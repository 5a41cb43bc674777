import t from 'tap'
import type { AddressInfo } from 'node:net'
import { Metrics } from './metrics.js'
import { createProjectorServer } from '../http.js'
import { LiveHub } from '../live/live-hub.js'

/** The Prometheus text format, strictly: every line a comment or `name{labels} value` (Prometheus
 * reads values with Go's ParseFloat, so NaN in any case, as prom-client's event-loop gauges write it). */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue
    const m =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|[Nn][Aa][Nn]|\+Inf|-Inf)$/.exec(
        line,
      )
    if (!m) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`)
    out.set(m[1]!, /nan/i.test(m[2]!) ? NaN : Number(m[2]))
  }
  return out
}

const quiet = () => new Metrics({ processMetrics: false })

t.test('dropped duplicates are counted by kind (H16)', async (t) => {
  const m = quiet()
  t.equal(
    parse(await m.render()).get('projector_duplicate_records_dropped_total{kind="event"}'),
    0,
    'shown before the first one',
  )
  m.duplicatesDropped('event', 2)
  m.duplicatesDropped('identify', 1)
  m.duplicatesDropped('event', 1)
  const text = await m.render()
  t.match(text, /^# TYPE projector_duplicate_records_dropped_total counter$/m)
  const v = parse(text)
  t.equal(v.get('projector_duplicate_records_dropped_total{kind="event"}'), 3)
  t.equal(v.get('projector_duplicate_records_dropped_total{kind="identify"}'), 1)
})

t.test('every metric parses as Prometheus text and moves with what it counts (bench/HISTORY.md)', async (t) => {
  const m = quiet()
  const before = parse(await m.render())
  t.equal(before.get('projector_rows_inserted_total{kind="event"}'), 0)
  t.equal(before.get('projector_insert_seconds_count'), 0)
  t.equal(before.get('projector_dlq_records_total'), 0)

  m.committedOffset('ev', 0, '9', '25')
  m.committedOffset('ev', 1, '99', '100')
  m.inserted(300, 20, 0.04)
  m.inserted(5_000, 0, 0.3)
  m.dlq(2)
  m.groupJoined()
  m.replayProgress({ done: 1_200, remaining: 800, rate: 450.5 })
  const text = await m.render()
  t.match(text, /^# TYPE projector_consumer_lag gauge$/m)
  t.match(text, /^# TYPE projector_insert_seconds histogram$/m)
  t.match(text, /^# TYPE projector_insert_rows histogram$/m)
  const v = parse(text)
  t.equal(v.get('projector_consumer_lag{topic="ev",partition="0"}'), 15, 'high watermark 25, offsets up to 9 resolved')
  t.equal(v.get('projector_consumer_lag{topic="ev",partition="1"}'), 0)
  t.equal(v.get('projector_rows_inserted_total{kind="event"}'), 5_300)
  t.equal(v.get('projector_rows_inserted_total{kind="identify"}'), 20)
  t.equal(v.get('projector_insert_seconds_count'), 2)
  t.equal(v.get('projector_insert_seconds_bucket{le="0.05"}'), 1)
  t.equal(v.get('projector_insert_seconds_bucket{le="+Inf"}'), 2)
  t.equal(v.get('projector_insert_rows_bucket{le="500"}'), 1, 'rows per insert: 320 in the first')
  t.equal(v.get('projector_insert_rows_bucket{le="5000"}'), 2)
  t.equal(v.get('projector_insert_rows_sum'), 5_320)
  t.equal(v.get('projector_dlq_records_total'), 2)
  t.equal(v.get('projector_group_joins_total'), 1)
  t.equal(v.get('projector_replay_records_done'), 1_200)
  t.equal(v.get('projector_replay_offsets_remaining'), 800)
  t.equal(v.get('projector_replay_records_per_second'), 450.5)

  m.committedOffset('ev', 0, '24', '30')
  t.equal(
    parse(await m.render()).get('projector_consumer_lag{topic="ev",partition="0"}'),
    5,
    'the gauge follows the partition',
  )
  t.equal(m.totalLag(), 5)
})

t.test('GET /metrics serves the registry with process metrics and the live subscribers', async (t) => {
  const metrics = new Metrics()
  const hub = new LiveHub()
  metrics.liveSubscribers(() => hub.subscribers)
  metrics.inserted(7, 0, 0.01)
  const server = createProjectorServer({
    metrics,
    hub,
    auth: { liveToken: 'x'.repeat(32) },
    health: async () => ({ ready: true, checks: {} }),
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const v = parse(await res.text())
  t.equal(v.get('projector_rows_inserted_total{kind="event"}'), 7)
  t.equal(v.get('projector_live_subscribers'), 0)
  t.ok((v.get('projector_process_resident_memory_bytes') ?? 0) > 0, 'process metrics, prefixed')
})

t.test("/health answers the services' one shape (H62), with the lag as a check; unknown paths 404", async (t) => {
  const metrics = new Metrics()
  let ready = false
  const server = createProjectorServer({
    metrics,
    hub: new LiveHub(),
    auth: { liveToken: 'x'.repeat(32) },
    health: async () =>
      ready
        ? { ready: true, checks: { clickhouse: { ok: true, detail: 'ok' } } }
        : { ready: false, checks: { clickhouse: { ok: false, detail: 'unavailable: ECONNREFUSED' } } },
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const waiting = await fetch(`${base}/health`)
  t.equal(waiting.status, 503)
  t.equal(waiting.headers.get('retry-after'), '2', 'every 503 says when to ask again')
  t.same(await waiting.json(), {
    status: 'unavailable',
    checks: {
      clickhouse: { ok: false, detail: 'unavailable: ECONNREFUSED' },
      lag: { ok: true, detail: '0 records' },
    },
  })
  ready = true
  const ok = await fetch(`${base}/health/ready`)
  t.equal(ok.status, 200)
  t.match(ok.headers.get('content-type'), /^application\/json/)
  t.same(await ok.json(), {
    status: 'ok',
    checks: { clickhouse: { ok: true, detail: 'ok' }, lag: { ok: true, detail: '0 records' } },
  })
  t.same(await (await fetch(`${base}/health/live`)).json(), { status: 'ok' })
  const nope = await fetch(`${base}/nope`)
  t.equal(nope.status, 404)
  t.same(await nope.json(), { success: false, error: { code: 'NOT_FOUND', message: 'No such endpoint' } })
})

t.test("erasures: each step's time from its request, failed attempts, requests pending and keys held", async (t) => {
  const m = quiet()
  const before = parse(await m.render())
  for (const step of ['projections_purged', 'history_unreadable', 'disk_gone']) {
    t.equal(before.get(`projector_erasure_step_seconds_count{step="${step}"}`), 0, `${step} shown before the first`)
    t.equal(before.get(`projector_erasures_pending{step="${step}"}`), 0)
  }
  t.equal(before.get('projector_erasure_attempts_failed_total'), 0)
  t.equal(before.get('projector_data_keys_held'), 0)
  t.equal(before.get('projector_data_keys_older_reading'), 0)
  t.equal(before.get('projector_data_keys_old_master'), 0)

  m.stepDone('projections_purged', 2.5)
  m.stepDone('projections_purged', 75)
  m.stepDone('history_unreadable', 3)
  m.attemptFailed()
  m.erasures(() => ({ projections_purged: 4, history_unreadable: 2, disk_gone: 1 }))
  m.dataKeys(() => 1234)
  m.olderDataKeys(() => true)
  m.oldMasterDataKeys(() => 17)
  const v = parse(await m.render())
  t.equal(v.get('projector_erasure_step_seconds_count{step="projections_purged"}'), 2)
  t.equal(v.get('projector_erasure_step_seconds_sum{step="projections_purged"}'), 77.5)
  t.equal(v.get('projector_erasure_step_seconds_bucket{le="60",step="projections_purged"}'), 1, 'one within 60 s')
  t.equal(v.get('projector_erasure_step_seconds_count{step="history_unreadable"}'), 1)
  t.equal(v.get('projector_erasure_step_seconds_count{step="disk_gone"}'), 0)
  t.equal(v.get('projector_erasure_attempts_failed_total'), 1)
  t.equal(v.get('projector_erasures_pending{step="projections_purged"}'), 4)
  t.equal(v.get('projector_erasures_pending{step="history_unreadable"}'), 2)
  t.equal(v.get('projector_erasures_pending{step="disk_gone"}'), 1)
  t.equal(v.get('projector_data_keys_held'), 1234)
  t.equal(v.get('projector_data_keys_older_reading'), 1, 'older keys still being read (A34)')
  t.equal(v.get('projector_data_keys_old_master'), 17, 'keys opened with an old master (A35)')
})
