// H36: readiness and metrics show traffic volumes, the error mix and producer state, so the public
// port (reached by browsers and mobile apps with public keys) answers 404 for them; the admin
// listener serves them. Liveness stays on the public port for load balancers that only have that.
import t, { type Test } from 'tap'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createIngestApp } from './app.js'
import { createAdminApp } from './admin-app.js'
import { IngestMetrics } from './metrics.js'
import { loadIngestConfig } from '../config.js'
import { KeyTable } from '../auth/index.js'
import { MemoryLimits, localLimiters } from '../limits/index.js'
import { createLogger } from '../../../shared/src/log.js'
import type { Codec } from '../../../../schemas/codec.js'

const log = createLogger('error', {}, () => undefined)
const metrics = new IngestMetrics(
  {
    queuedRecords: () => 0,
    appenderStats: () => ({
      flushes: 0,
      records: 0,
      failures: 0,
      timeouts: 0,
      retired: 0,
      shed: 0,
      expired: 0,
      refused: 0,
    }),
    ready: () => false,
    accountsSilenceMs: () => 0,
  },
  { processMetrics: false },
)

async function listen(t: Test, server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

t.test('the public port answers liveness and 404 for readiness and metrics', async (t) => {
  const app = createIngestApp({
    cfg: loadIngestConfig({}),
    keys: new KeyTable(),
    limits: new MemoryLimits(localLimiters()),
    codec: {} as Codec,
    appender: { append: async () => undefined },
    log,
    metrics,
  })
  const url = await listen(t, createServer(app.callback()))
  t.equal((await fetch(`${url}/health/live`)).status, 200, 'liveness for load balancers')
  for (const path of ['/metrics', '/health/ready', '/health']) {
    const res = await fetch(`${url}${path}`)
    t.equal(res.status, 404, `${path} is not on the public port`)
    const text = await res.text()
    t.notMatch(text, /ingest_|checks|producers/, `${path}: nothing of the instance's state`)
    t.match(JSON.parse(text), { success: false, error: { code: 'NOT_FOUND' } }, `${path}: the documented error shape`)
  }
})

t.test('the admin listener serves readiness, liveness and metrics', async (t) => {
  let ready = false
  const readiness = () => ({
    ready,
    checks: { kafka: { ok: ready, detail: ready ? '1 producers connected' : 'connecting' } },
  })
  const url = await listen(t, createServer(createAdminApp({ readiness, metrics, log }).callback()))
  t.equal((await fetch(`${url}/health/live`)).status, 200)
  const notReady = await fetch(`${url}/health/ready`)
  t.equal(notReady.status, 503)
  t.equal(notReady.headers.get('retry-after'), '2')
  t.match(await notReady.json(), { status: 'unavailable', checks: { kafka: { ok: false } } })
  ready = true
  for (const path of ['/health/ready', '/health'])
    t.match(await (await fetch(`${url}${path}`)).json(), { status: 'ok', checks: { kafka: { ok: true } } }, path)
  const m = await fetch(`${url}/metrics`)
  t.match(m.headers.get('content-type'), /^text\/plain/)
  t.match(await m.text(), /^ingest_ready /m)
  t.equal((await fetch(`${url}/v1/event`, { method: 'POST' })).status, 404, 'no API on the admin listener')
})
