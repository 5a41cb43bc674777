// H27: a dashboard started while the registry and ClickHouse are down does not exit:
// /health names what it waits for, /health/live answers, the API answers 503 with Retry-After, and
// it becomes ready when they answer. Both are the real servers behind TCP gates.
import t from 'tap'
import { failingChecks } from '../../shared/src/http/index.js'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { createKafka } from '../../shared/src/kafka.js'
import { createLogger } from '../../shared/src/log.js'
import { waitUntil } from '../../../test/support/harness.js'
import { loadDashboardConfig } from './config.js'
import { createDashboardService } from './main.js'
import { startTcpGate } from '../../../test/support/tcp-gate.js'

const REGISTRY_URL = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123'

t.test('the dashboard waits for its dependencies at start and reports not-ready meanwhile', async (t) => {
  const suffix = randomBytes(5).toString('hex')
  const reg = new URL(REGISTRY_URL)
  const chUrl = new URL(CLICKHOUSE_URL)
  const registryGate = await startTcpGate({ host: reg.hostname, port: Number(reg.port) })
  const clickhouseGate = await startTcpGate({ host: chUrl.hostname, port: Number(chUrl.port) })
  t.teardown(() => registryGate.stop())
  t.teardown(() => clickhouseGate.stop())
  const cfg = loadDashboardConfig({
    ...(process.env as Record<string, string>),
    SCHEMA_REGISTRY_URL: registryGate.url(reg.pathname),
    CLICKHOUSE_URL: clickhouseGate.url(),
    TOPIC_EVENTS: `test.${suffix}.events`,
    TOPIC_IDENTIFIES: `test.${suffix}.identifies`,
    TOPIC_ACCOUNTS: `test.${suffix}.accounts`,
    TOPIC_DLQ: `test.${suffix}.dlq`,
    TOPIC_PARTITIONS: '1',
    DASHBOARD_PORT: '0',
    SESSION_SECRET: randomBytes(24).toString('hex'),
    LOG_LEVEL: 'error',
  })
  const logs: any[] = []
  const svc = await createDashboardService(
    cfg,
    createLogger('debug', { test: suffix }, (l) => logs.push(JSON.parse(l))),
  )
  let startError: unknown
  const started = svc.start().catch((err) => (startError = err))
  t.teardown(async () => {
    await svc.close()
    await started
    const kafka = createKafka({ brokers: cfg.kafka.brokers, clientId: `test-${suffix}` }, createLogger('error'))
    const admin = kafka.admin()
    await admin.connect()
    await admin.deleteTopics({ topics: Object.values(cfg.topics) }).catch(() => undefined)
    await admin.disconnect()
  })
  await waitUntil(() => svc.server?.listening === true, 30_000, 'the dashboard to listen')
  const base = `http://127.0.0.1:${(svc.server!.address() as AddressInfo).port}`

  // One registry call is several connections (its client retries inside a call): wait for a few calls.
  await waitUntil(
    () => registryGate.refused >= 8 && logs.some((l) => l.msg === 'waiting for registry'),
    60_000,
    'the dashboard to try the registry a few times',
  )
  const health = await fetch(`${base}/health`)
  t.equal(health.status, 503)
  t.ok(Number(health.headers.get('retry-after')) > 0, 'readiness says when to ask again')
  const waiting = await health.json()
  t.match(waiting, {
    status: 'unavailable',
    checks: { kafka: { ok: true }, registry: { ok: false, detail: /^unavailable/ } },
  })
  t.same(failingChecks(waiting.checks), ['registry', 'clickhouse', 'accounts'])
  t.equal((await fetch(`${base}/health/live`)).status, 200, 'live all the same')
  const api = await fetch(`${base}/api/me`)
  t.equal(api.status, 503, 'the API says to come back')
  t.ok(Number(api.headers.get('retry-after')) > 0, 'with Retry-After')
  t.match(await api.json(), { success: false, error: { code: 'SERVICE_UNAVAILABLE' } })

  registryGate.open()
  await waitUntil(
    () => clickhouseGate.refused >= 3 && logs.some((l) => l.msg === 'waiting for clickhouse'),
    60_000,
    'the dashboard to try ClickHouse a few times',
  )
  const stillWaiting = await (await fetch(`${base}/health`)).json()
  t.match(stillWaiting, { status: 'unavailable', checks: { registry: { ok: true } } })
  t.same(failingChecks(stillWaiting.checks), ['clickhouse', 'accounts'])
  clickhouseGate.open()

  await waitUntil(async () => (await fetch(`${base}/health`)).status === 200, 60_000, 'the dashboard to become ready')
  t.equal(startError, undefined, 'start() did not fail')
  t.equal((await fetch(`${base}/api/me`)).status, 401, 'the API answers (no session yet)')
})
