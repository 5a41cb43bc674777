// Composition root of the ingest service: builds the Kafka, registry and ClickHouse clients at the
// edge (no I/O), and in start() listens first -- /health/ready says what it waits for, /v1/* answers
// 503 with Retry-After -- then waits for Kafka and the registry, connects the producers, follows the
// accounts topic into the key table (A1) and starts accepting. A dependency that is down at start is
// waited for, never a reason to exit (H27). `close()` drains: stop taking requests, answer those in flight,
// flush the appender, disconnect.
import { createKeysLane } from './privacy/index.js'
import { createServer, type Server } from 'node:http'
import type Koa from 'koa'
import type { ClickHouseClient } from '@clickhouse/client'
import type { Kafka } from '../../shared/src/kafka/client.js'
import type { Codec } from '../../../schemas/codec.js'
import { openClickHouse } from '../../shared/src/clickhouse.js'
import { followAccounts, type AccountsFollower } from '../../shared/src/accounts/accounts-log.js'
import { ErasureSet } from '../../shared/src/privacy/erasure-set.js'
import { Pseudonyms } from '../../shared/src/privacy/erasure-identity.js'
import { followErasures } from '../../shared/src/privacy/erasures-log.js'
import { Readiness } from '../../shared/src/wait-for.js'
import { checksOf } from '../../shared/src/http/index.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { createEventLogClients, prepareEventLog } from '../../shared/src/event-log.js'
import { loadIngestConfig, type IngestConfig } from './config.js'
import { KeyTable } from './auth/index.js'
import {
  chooseLimits,
  DEFAULT_PLANS,
  parsePlans,
  ipBucket,
  usageRefresh,
  type ChosenLimits,
  type Limits,
  type UsageRefresh,
} from './limits/index.js'
import { createAppenders, type Appenders } from './kafka/appenders.js'
import { createIngestApp } from './http/app.js'
import { createAdminApp } from './http/admin-app.js'
import { drainServer } from './http/drain.js'
import { readinessOf } from './http/readiness.js'
import { IngestMetrics } from './http/metrics.js'
import type { State } from './http/context.js'
import { createRefusals } from './refusals/index.js'

/** What the service is doing, read by readiness, the app and close(). */
interface Phase {
  accepting: boolean
  closing: boolean
  follower?: AccountsFollower
  erasures?: AccountsFollower
}

export async function createIngestService(cfg: IngestConfig, log: Logger) {
  // What start() waits for; once all are 'ok', readiness is the live checks of readinessOf.
  const startup = new Readiness(['kafka', 'registry', 'accounts'])
  const stopping = new AbortController()
  const phase: Phase = { accepting: false, closing: false }
  const { kafka, codec } = createEventLogClients(cfg, 'ingest', log)
  const ch = openClickHouse(cfg.clickhouse)
  const keys = new KeyTable({ plans: cfg.plansJson ? parsePlans(cfg.plansJson) : DEFAULT_PLANS })
  // H55: erasures with suppression refuse their user's new items; followed like the accounts topic.
  const erasures = new ErasureSet(new Pseudonyms(cfg.privacy.pseudonymKey))
  const metrics: IngestMetrics = new IngestMetrics({
    queuedRecords: () => appender.health().queuedRecords,
    appenderStats: () => appender.stats,
    ready: () => readiness().ready,
    accountsSilenceMs: () => phase.follower?.silenceMs() ?? 0,
    limiterMode: () => limits.mode,
  })
  const chosen = chooseLimits(cfg, log, () => metrics.limiterFallback())
  const { limits } = chosen
  const usage = usageRefresh(ch, cfg.clickhouse.database, limits, chosen.usageEveryMs, log)
  const lanes = createAppenders(kafka, cfg, metrics, log)
  const { appender } = lanes
  const readiness = () =>
    phase.accepting && phase.follower
      ? readinessOf({ appender, accounts: phase.follower, draining: () => phase.closing, limits })
      : { ready: false, checks: checksOf(startup.snapshot()) }
  // H65, H66: refused requests of authenticated keys, counted per account and drained to their topic.
  const refusals = createRefusals(kafka, codec, cfg, metrics, log)
  // A15: undefined unless PRIVACY_ENCRYPT is on.
  const keysLane = createKeysLane(kafka, cfg, log)
  const app = createIngestApp({
    cfg,
    keys,
    erasures,
    limits,
    codec,
    appender,
    log,
    draining: () => phase.closing,
    accepting: () => phase.accepting && !phase.closing,
    metrics,
    refusals: refusals.aggregator,
    sealer: keysLane?.sealer,
  })
  const server = publicServer(cfg, app)
  const afterReadiness = () => probeRedisAfterReadiness(limits, cfg.ipRequestsPerMinute)
  const adminServer: Server = createServer(createAdminApp({ readiness, metrics, log, afterReadiness }).callback())
  const clients = { kafka, codec, ch, keys, erasures, chosen, usage, lanes, refusals, keysLane }
  const parts = { cfg, log, startup, stopping, phase, ...clients }
  return {
    deps: { kafka, codec, keys, quota: chosen.local.quota, appender, ch, limits },
    /** Listening (for /health/live) before start() resolves. */
    server,
    /** Listening (for /health/ready and /metrics) before start() resolves. */
    adminServer,
    start: () => startService({ ...parts, server, adminServer }),
    close: () => closeService({ ...parts, server, adminServer }),
  }
}

type Parts = {
  cfg: IngestConfig
  log: Logger
  startup: Readiness
  stopping: AbortController
  phase: Phase
  kafka: Kafka
  codec: Codec
  ch: ClickHouseClient
  keys: KeyTable
  erasures: ErasureSet
  chosen: ChosenLimits
  usage: UsageRefresh
  lanes: Appenders
  refusals: ReturnType<typeof createRefusals>
  keysLane: ReturnType<typeof createKeysLane>
  server: Server
  adminServer: Server
}

/** Listens, then waits for Kafka and the registry, connects the producers, follows the accounts and
 *  erasures topics to their end, reads the month's usage, and accepts. */
async function startService(p: Parts): Promise<Server> {
  const { cfg, log, server, adminServer } = p
  await listen(adminServer, cfg.admin.port, cfg.admin.host)
  await listen(server, cfg.port, cfg.host)
  log.info('ingest listening; waiting for its dependencies', {
    port: portOf(server, cfg.port),
    adminPort: portOf(adminServer, cfg.admin.port),
  })
  // Redis is never waited for beyond one connect and one ping: without an answer the limits are
  // enforced per instance until it comes (docs/limits.md).
  const redisConnected = p.chosen.connect()
  const waits = { signal: p.stopping.signal, readiness: p.startup }
  const eventLog = await prepareEventLog(p.kafka, p.codec, cfg, log, waits)
  await p.lanes.start(eventLog.maxMessageBytes, log)
  // After the appenders: a topic that cannot take one valid item stops start() before another producer connects.
  await p.refusals.start()
  await p.keysLane?.start()
  Object.assign(p.phase, await followKeysAndErasures({ ...p, waits }))
  p.startup.set('accounts', 'ok')
  await redisConnected
  // Usage is best effort at start: the quota also counts what this instance accepts (H5).
  await p.usage.refresh().catch((err) => log.warn('initial usage read failed (tables may not exist yet)', { err }))
  p.usage.schedule()
  p.phase.accepting = true
  log.info('ingest accepting', { keys: p.keys.keyCount })
  return server
}

/** Drains: stop taking requests, answer those in flight, flush the appender, disconnect. */
async function closeService(p: Parts): Promise<void> {
  p.phase.closing = true
  p.stopping.abort()
  p.usage.stop()
  // In-flight requests wait at most for their flush deadline, a little more for the answer.
  if (p.server.listening) {
    const { forced } = await drainServer(p.server, p.cfg.producer.flushTimeoutMs + 5_000)
    if (forced) p.log.warn('drain deadline passed; remaining connections closed')
  }
  // Readiness answers (503, draining) until the drain is done, so load balancers see it.
  if (p.adminServer.listening) await drainServer(p.adminServer, 1_000)
  await p.lanes.appender.close()
  await p.refusals.close()
  await p.keysLane?.close()
  await p.phase.follower?.stop()
  await p.phase.erasures?.stop()
  await p.ch.close()
  p.chosen.disconnect()
}

// While limits are enforced locally, each readiness check, once answered, gives the fallback's probe
// schedule (one call per REDIS_RETRY_MS) a call to ask Redis with, as the checks did when they passed
// the public port's middleware: an idle instance finds Redis again without waiting for traffic
// (docs/limits.md). A peek counts nothing.
async function probeRedisAfterReadiness(limits: Limits, ipRequestsPerMinute: number): Promise<void> {
  if (limits.mode === 'local')
    await Promise.resolve(limits.peekRequest(ipBucket('readiness'), ipRequestsPerMinute, Date.now())).catch(
      () => undefined,
    )
}

// H24: Node's defaults let a stalled client hold a connection for 60 s (headers) to 300 s (body),
// checked only every 30 s. Headers get INGEST_HEADERS_TIMEOUT_MS; a body is cut by the reader at
// BODY_READ_TIMEOUT_MS (http/body-reader.ts), and Node's request timeout backs it up for bodies
// nobody reads; timeouts are checked every second; connections are capped.
function publicServer(cfg: IngestConfig, app: Koa<State>): Server {
  const server: Server = createServer(
    {
      headersTimeout: cfg.server.headersTimeoutMs,
      requestTimeout: cfg.server.headersTimeoutMs + cfg.body.readTimeoutMs + 5_000,
      connectionsCheckingInterval: 1_000,
    },
    app.callback(),
  )
  server.maxConnections = cfg.server.maxConnections
  // Idle keep-alive connections hold no body: longer than a load balancer's usual 60 s idle timeout,
  // so the balancer, not ingest, closes them (no request lost on a connection closed under it).
  server.keepAliveTimeout = 65_000
  return server
}

/** The key table from the accounts topic (A1) and the erasures in force (H55), both followed to their end. */
async function followKeysAndErasures(
  d: Pick<Parts, 'kafka' | 'codec' | 'cfg' | 'keys' | 'erasures' | 'log'> & {
    waits: { signal: AbortSignal; readiness: Readiness }
  },
): Promise<{ follower: AccountsFollower; erasures: AccountsFollower }> {
  const { kafka, codec, cfg, keys, log, waits } = d
  const follower = await followAccounts(
    kafka,
    codec,
    cfg.topics.accounts,
    (e) => {
      if (e.kind === 'Account') keys.applyAccount(e.value)
      else if (e.kind === 'Plan') keys.applyPlan(e.value)
      else keys.applyKey(e.value)
    },
    log,
    { groupPrefix: `ingest-accounts-${cfg.instanceId}`, ...waits },
  )
  await follower.ready
  const erasures = await followErasures(kafka, codec, cfg.topics.erasures!, (e) => d.erasures.apply(e), log, {
    groupPrefix: `ingest-erasures-${cfg.instanceId}`,
    ...waits,
  })
  await erasures.ready
  return { follower, erasures }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

function portOf(server: Server, configured: number): number {
  const addr = server.address()
  return typeof addr === 'object' && addr ? addr.port : configured
}

runService('ingest', import.meta.url, loadIngestConfig, createIngestService)
