// H27: a projector started while the registry and ClickHouse are down does not exit:
// it reports not-ready naming what it waits for, stays live, and projects once they answer,
// without a restart. Both are the real servers behind TCP gates that open after a while.
import t from 'tap'
import { failingChecks } from '../../services/shared/src/http/index.js'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { Codec, createRegistry } from '../../schemas/codec.js'
import { createKafka } from '../../services/shared/src/kafka.js'
import { createLogger } from '../../services/shared/src/log.js'
import { waitUntil, isolatedEnv } from '../support/harness.js'
import { createClickHouse } from '../../services/shared/src/clickhouse.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createProjectorService } from '../../services/projector/src/main.js'
import { makeEvent } from '../support/clickhouse-helpers.js'
import { startTcpGate } from '../support/tcp-gate.js'

const REGISTRY_URL = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123'

t.test('the projector waits for the registry and ClickHouse at start, then projects', async (t) => {
  const suffix = randomBytes(5).toString('hex')
  const reg = new URL(REGISTRY_URL)
  const chUrl = new URL(CLICKHOUSE_URL)
  const registryGate = await startTcpGate({ host: reg.hostname, port: Number(reg.port) })
  const clickhouseGate = await startTcpGate({ host: chUrl.hostname, port: Number(chUrl.port) })
  t.teardown(() => registryGate.stop())
  t.teardown(() => clickhouseGate.stop())
  const env = isolatedEnv(suffix, {
    SCHEMA_REGISTRY_URL: registryGate.url(reg.pathname),
    CLICKHOUSE_URL: clickhouseGate.url(),
  })
  const cfg = loadProjectorConfig(env)
  const logs: any[] = []
  const log = createLogger('debug', { test: suffix }, (l) => logs.push(JSON.parse(l)))
  const svc = await createProjectorService(cfg, log)
  let startError: unknown
  const started = svc.start().catch((err) => (startError = err))
  t.teardown(async () => {
    await svc.close()
    await started
  })
  await waitUntil(() => svc.server.listening, 30_000, 'the health endpoint to listen')
  const base = `http://127.0.0.1:${(svc.server.address() as AddressInfo).port}`

  await waitUntil(() => clickhouseGate.refused >= 3, 60_000, 'the projector to try ClickHouse a few times')
  const notReady = await fetch(`${base}/health`)
  t.equal(notReady.status, 503, 'not ready while ClickHouse is down')
  const waiting = await notReady.json()
  t.match(waiting, { status: 'unavailable', checks: { clickhouse: { ok: false, detail: /^unavailable/ } } })
  t.same(failingChecks(waiting.checks), ['clickhouse', 'kafka', 'registry'])
  t.equal((await fetch(`${base}/health/live`)).status, 200, 'live all the same')
  t.ok(
    logs.some((l) => l.msg === 'waiting for clickhouse'),
    'the log says what it waits for',
  )

  clickhouseGate.open()
  // One registry call is several connections (its client retries inside a call): wait for a few calls.
  await waitUntil(
    () => registryGate.refused >= 8 && logs.some((l) => l.msg === 'waiting for registry'),
    60_000,
    'the projector to try the registry a few times',
  )
  const stillWaiting = await (await fetch(`${base}/health`)).json()
  t.match(
    stillWaiting,
    {
      status: 'unavailable',
      checks: { clickhouse: { ok: true }, kafka: { ok: true }, registry: { ok: false, detail: /^unavailable/ } },
    },
    'names the registry',
  )
  registryGate.open()

  await waitUntil(async () => (await fetch(`${base}/health`)).status === 200, 60_000, 'the projector to become ready')
  t.equal(startError, undefined, 'start() did not fail')
  t.match(await (await fetch(`${base}/health`)).json(), {
    status: 'ok',
    checks: { clickhouse: { ok: true }, kafka: { ok: true }, registry: { ok: true } },
  })

  // And it projects: events written after it became ready reach ClickHouse.
  const kafka = createKafka({ brokers: cfg.kafka.brokers, clientId: `test-${suffix}` }, createLogger('error'))
  const codec = new Codec(createRegistry(REGISTRY_URL))
  await codec.register(cfg.topics)
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  const ch = await createClickHouse({ ...cfg.clickhouse, url: CLICKHOUSE_URL })
  t.teardown(async () => {
    await producer.disconnect()
    await ch.command({ query: `DROP DATABASE IF EXISTS ${cfg.clickhouse.database}` })
    await ch.close()
    const admin = kafka.admin()
    await admin.connect()
    await admin.deleteTopics({ topics: Object.values(cfg.topics) }).catch(() => undefined)
    await admin.disconnect()
  })
  const events = Array.from({ length: 10 }, (_, i) => makeEvent({ account_id: `acct_${suffix}`, user_id: `u${i}` }))
  await producer.send({
    topic: cfg.topics.events,
    acks: -1,
    messages: events.map((e) => ({ key: e.user_id, value: codec.encode('Event', e) })),
  })
  const count = async () =>
    Number(
      (
        await (
          await ch.query({
            query: `SELECT count() AS n FROM ${cfg.clickhouse.database}.events FINAL`,
            format: 'JSONEachRow',
          })
        ).json<{ n: string }>()
      )[0]!.n,
    )
  await waitUntil(async () => (await count()) >= events.length, 60_000, 'the events in ClickHouse')
  t.equal(await count(), events.length)
})
