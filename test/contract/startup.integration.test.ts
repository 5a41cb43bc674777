// H27, for ingest: started while the schema registry is down, ingest does not exit. It
// listens at once, is live but not ready (naming what it waits for), answers /v1/* with 503 and
// Retry-After (never a 401 from a key table not yet loaded), and accepts events once the registry
// answers -- without a restart. The registry is the real one behind a TCP gate opened later.
import t from 'tap'
import { randomBytes, randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { startServices, waitUntil } from '../support/harness.js'
import { createLogger } from '../../services/shared/src/log.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { createIngestService } from '../../services/ingest/src/main.js'
import { startTcpGate } from '../support/tcp-gate.js'

const REGISTRY_URL = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'

t.test('ingest waits for the registry at start, then accepts', async (t) => {
  // The projector and topics of a normal harness; a second ingest comes up behind the gate.
  const s = await startServices(t, { ingest: false })
  const { key } = await s.createKey({ type: 'live', plan: 'orbit' })
  const reg = new URL(REGISTRY_URL)
  const gate = await startTcpGate({ host: reg.hostname, port: Number(reg.port) })
  t.teardown(() => gate.stop())

  const cfg = loadIngestConfig({
    ...s.env,
    SCHEMA_REGISTRY_URL: gate.url(reg.pathname),
    INGEST_INSTANCE_ID: `ingest-${randomBytes(4).toString('hex')}`,
  })
  const svc = await createIngestService(
    cfg,
    createLogger('error', {}, () => undefined),
  )
  const started = svc.start().catch((err) => err)
  t.teardown(async () => {
    await svc.close()
    await started
  })
  await waitUntil(() => svc.server.listening && svc.adminServer.listening, 30_000, 'ingest to listen')
  const base = `http://127.0.0.1:${(svc.server.address() as AddressInfo).port}`
  const admin = `http://127.0.0.1:${(svc.adminServer.address() as AddressInfo).port}`
  await waitUntil(() => gate.refused >= 2, 60_000, 'ingest to try the registry')

  t.equal((await fetch(`${base}/health/live`)).status, 200, 'live while waiting')
  const ready = await fetch(`${admin}/health/ready`)
  t.equal(ready.status, 503, 'not ready while the registry is down')
  const rb = await ready.json()
  t.equal(rb.checks.registry.ok, false, 'names the registry')
  const early = await fetch(`${base}/v1/event`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'early', user: { id: 'u' } }),
  })
  t.equal(early.status, 503, 'an event before start-up is 503, not a 401 for a key not loaded yet')
  t.match(early.headers.get('retry-after'), /^\d+$/)

  gate.open()
  t.equal(await started, svc.server, 'start() finished once the registry answered')
  await waitUntil(async () => (await fetch(`${admin}/health/ready`)).status === 200, 30_000, 'ready')
  const messageId = randomUUID()
  const res = await fetch(`${base}/v1/event`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'after_wait', user: { id: 'u' }, message_id: messageId }),
  })
  t.equal(res.status, 200)
  const eventId = (await res.json()).data.results[0].event_id
  await s.waitForRows(`SELECT event_id FROM ${s.database}.events FINAL WHERE event_id = '${eventId}'`, 1, 30_000)
})
