// The SDK's throughput from one Node process against the local stack (sdk/README.md): a real ingest
// runs as a child process on a fresh topic set; this process tracks N events with one client and
// times track() of the first to flush() resolving (every event acknowledged: on Kafka, A4), and
// the CPU this process spent per event (building, serializing, gzip, HTTP), which the machine's
// load disturbs less than the wall time.
//
//   node --import tsx sdk/bench/throughput.ts [--events 50000] [--in-flight 1,2,4] [--gzip true,false]
import { parseArgs } from 'node:util'
import { cpus } from 'node:os'
import { startServices } from '../../test/support/harness.js'
import { TrackingClient } from '../src/index.js'
import { freePort, spawnIngest, waitReady } from '../testing/ingest-process.js'

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '50000' },
    'in-flight': { type: 'string', default: '1,2,4' },
    gzip: { type: 'string', default: 'true,false' },
  },
})
const N = Number(args.events)
const teardowns: Array<() => unknown> = []
const s = await startServices({ teardown: (fn) => teardowns.push(fn) }, { ingest: false, projector: false })
const ingest = spawnIngest({ ...s.env, LOG_LEVEL: 'warn' }, await freePort())
try {
  const { key } = await s.createKey({ plan: 'unlimited', type: 'live' })
  await waitReady(ingest, key)
  console.log(
    `node ${process.version}, ${cpus().length} cores; ${N} events per run, batches of 100; ingest as a child process`,
  )
  console.log('in-flight | gzip | seconds | events/s | SDK process CPU µs/event | requests | retries | failed')
  for (const gzip of args.gzip.split(',').map((x) => x === 'true')) {
    for (const maxInFlight of args['in-flight'].split(',').map(Number)) {
      let failed = 0
      const c = new TrackingClient({
        apiKey: key,
        baseUrl: ingest.url,
        flushAt: 100,
        maxInFlight,
        gzip,
        maxQueueSize: N,
        onError: (_e, items) => (failed += items.length),
      })
      const start = performance.now()
      const cpu0 = process.cpuUsage()
      for (let i = 0; i < N; i++) {
        c.track('bench_event', { i, plan: 'pro', path: '/pricing' }, { user: `user_${i % 1000}` })
        if (i % 1000 === 999) await new Promise((r) => setImmediate(r))
      }
      await c.flush()
      const sec = (performance.now() - start) / 1000
      const cpu = process.cpuUsage(cpu0)
      const st = c.stats()
      console.log(
        `${maxInFlight} | ${gzip} | ${sec.toFixed(2)} | ${Math.round(N / sec)} | ${((cpu.user + cpu.system) / N).toFixed(1)} | ${st.requests} | ${st.retries} | ${failed}`,
      )
      await c.shutdown()
    }
  }
} finally {
  ingest.child.kill('SIGTERM')
  await ingest.exited
  for (const fn of teardowns.reverse()) await fn()
}
