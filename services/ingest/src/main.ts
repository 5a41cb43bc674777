// Composition root of the ingest service: builds the Kafka, registry and ClickHouse clients at the
// edge (no I/O), and in start() listens first -- /health/ready says what it waits for, /v1/* answers
// 503 with Retry-After -- then waits for Kafka and the registry, connects the producers, follows the
// accounts topic into the key table (A1) and starts accepting. A dependency that is down at start is
// waited for, never a reason to exit (issue 9, item 6). `close()` drains: stop taking requests,
// answer those in flight, flush the appender, disconnect.
import { createServer, type Server } from 'node:http'
import { Redis } from 'ioredis'
import { openClickHouse } from '../../shared/src/clickhouse.js'
import { followAccounts, type AccountsFollower } from '../../shared/src/accounts/accounts-log.js'
import { ErasureSet } from '../../shared/src/privacy/erasure-set.js'
import { followErasures } from '../../shared/src/privacy/erasures-log.js'
import { Readiness } from '../../shared/src/wait-for.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { monthlyUsage } from '../../shared/src/usage/usage-query.js'
import { loadIngestConfig, type IngestConfig } from './config.js'
import { KeyTable } from './auth/index.js'
import {
  RequestLimiter,
  EventRateLimiter,
  MonthlyQuota,
  MemoryLimiterStore,
  monthKeyOf,
  DEFAULT_PLANS,
  parsePlans,
  RedisLimits,
  LimiterFallback,
  SharedLimits,
  setProjected,
  ipBucket,
} from './limits/index.js'
import { RecordAppender } from './kafka/record-appender.js'
import { LaneRouter } from './kafka/lane-router.js'
import { planFlushes } from './kafka/record-limits.js'
import { CachedDefaultPartitioner } from './kafka/partitioner.js'
import { RoutedPartitions, withRoutes } from './kafka/routed-partitions.js'
import { createIngestApp } from './http/app.js'
import { createAdminApp } from './http/admin-app.js'
import { drainServer } from './http/drain.js'
import { readinessOf } from './http/readiness.js'
import { IngestMetrics } from './http/metrics.js'
import { createRefusals } from './refusals/index.js'
import { createEventLogClients, prepareEventLog } from '../../shared/src/event-log.js'

export async function createIngestService(cfg: IngestConfig, log: Logger) {
  // What start() waits for; once all are 'ok', readiness is the live checks of readinessOf.
  const startup = new Readiness(['kafka', 'registry', 'accounts'])
  const stopping = new AbortController()
  const waits = { signal: stopping.signal, readiness: startup }
  const { kafka, codec } = createEventLogClients(cfg, 'ingest', log)
  const ch = openClickHouse(cfg.clickhouse)

  const plans = cfg.plansJson ? parsePlans(cfg.plansJson) : DEFAULT_PLANS
  const keys = new KeyTable({ plans })
  let follower: AccountsFollower | undefined
  // H55: erasures with suppression refuse their user's new items; followed like the accounts topic.
  const erasures = new ErasureSet()
  let erasuresFollower: AccountsFollower | undefined
  let accepting = false

  const quota = new MonthlyQuota({ inFlightMs: cfg.usageInFlightMs })
  const requestLimiter = new RequestLimiter(new MemoryLimiterStore())
  const eventLimiter = new EventRateLimiter(new MemoryLimiterStore())
  // With REDIS_URL the limits are counted in Redis for every instance; the three above answer
  // while it is away. No offline queue: a call while disconnected fails at once instead of waiting.
  const redis = cfg.redis
    ? new Redis(cfg.redis.url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        commandTimeout: cfg.redis.timeoutMs,
        maxRetriesPerRequest: 0,
        connectTimeout: 2000,
        retryStrategy: (times) => Math.min(100 * times, 1000),
      })
    : undefined
  const shared =
    redis && cfg.redis
      ? new SharedLimits({
          redis: new RedisLimits(redis, cfg.redis.keyPrefix, cfg.usageInFlightMs),
          fallback: new LimiterFallback(
            cfg.redis.retryMs,
            (c) => {
              if (c.mode === 'local')
                log.warn('limiter: Redis is not answering; enforcing limits per instance until it does', {
                  reason: c.reason,
                })
              else log.info('limiter: Redis answers; limits shared across instances')
            },
            { reason: 'connecting' },
          ),
          local: { requests: requestLimiter, events: eventLimiter, quota },
          onFallback: () => metrics.limiterFallback(),
          onError: (what, err) => log.warn(what, { err: err as Error }),
        })
      : undefined
  // Transitions are logged by the fallback; the client's own error events would repeat on every retry.
  redis?.on('error', () => undefined)
  redis?.on('ready', () => shared?.probeNow())
  // H5, H33: the month's usage comes from the projector's counters, refreshed in the background and
  // reconciled with the counts (H34: raised to what is stored, lowered to stored plus in flight).
  const refreshUsage = async () => {
    const now = Date.now()
    const month = monthKeyOf(now)
    const usage = await monthlyUsage(ch, cfg.clickhouse.database, month)
    if (shared) await shared.reconcile(month, usage, now)
    else setProjected(quota, month, usage, now)
  }
  let usageTimer: NodeJS.Timeout | undefined
  const scheduleUsage = () => {
    usageTimer = setTimeout(
      () => {
        refreshUsage()
          .catch((err) => log.warn('usage refresh failed; enforcing from local counts', { err }))
          .finally(scheduleUsage)
      },
      shared ? cfg.usageReconcileMs : cfg.usageRefreshMs,
    )
    usageTimer.unref()
  }

  const metrics: IngestMetrics = new IngestMetrics({
    queuedRecords: () => appender.health().queuedRecords,
    appenderStats: () => appender.stats,
    ready: () => readiness().ready,
    accountsSilenceMs: () => follower?.silenceMs() ?? 0,
    limiterMode: () => shared?.mode ?? 'memory',
  })

  // Producers are made by factories, not once: a producer whose send failed is replaced
  // (record-appender.ts). Slot i of the transactional pool keeps one transactional id, so the
  // replacement's new epoch fences the retired producer.
  const retry = { initialRetryTime: 10, maxRetryTime: 1000, retries: 10 }
  // Each producer records where its records went, so a send kafkajs resolves without sending some
  // of them fails instead of being acknowledged (routed-partitions.ts).
  const idempotentProducer = () => {
    const routes = new RoutedPartitions()
    return withRoutes(
      kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: routes.wrap(CachedDefaultPartitioner),
        retry,
      }),
      routes,
    )
  }
  const transactionalProducer = (i: number) => {
    const routes = new RoutedPartitions()
    return withRoutes(
      kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        transactionalId: i === 0 ? cfg.instanceId : `${cfg.instanceId}-${i}`,
        createPartitioner: routes.wrap(CachedDefaultPartitioner),
        // A transaction begun right after the previous commit is refused with CONCURRENT_TRANSACTIONS
        // until the broker has written the commit markers (a few ms); kafkajs retries the whole send
        // with this policy, so a short first step matters (bench/HISTORY.md). The Java client backs off 20 ms.
        retry,
      }),
      routes,
    )
  }
  const common = {
    lingerMs: cfg.producer.lingerMs,
    maxBatchRecords: cfg.producer.maxBatchRecords,
    maxBatchBytes: cfg.producer.maxBatchBytes,
    flushTimeoutMs: cfg.producer.flushTimeoutMs,
    maxQueuedRecords: cfg.producer.maxQueuedRecords,
  }
  // Requests that land in one partition are atomic without a transaction (lane-router.ts); with
  // transactions off, every request takes the plain lane.
  const plain = new RecordAppender(
    idempotentProducer,
    {
      ...common,
      transactional: false,
      poolSize: cfg.producer.plainPoolSize,
      onFlush: (n, s, ok) => metrics.flush('plain', n, s, ok),
    },
    log,
  )
  const atomic = cfg.producer.transactional
    ? new RecordAppender(
        transactionalProducer,
        {
          ...common,
          transactional: true,
          poolSize: cfg.producer.poolSize,
          onFlush: (n, s, ok) => metrics.flush('transactional', n, s, ok),
        },
        log,
      )
    : undefined
  const appender = atomic ? new LaneRouter(plain, atomic) : plain
  let closing = false
  const readiness = () =>
    accepting && follower
      ? readinessOf({ appender, accounts: follower, draining: () => closing, limits: shared })
      : {
          ready: false,
          checks: Object.fromEntries(
            Object.entries(startup.snapshot()).map(([k, v]) => [k, { ok: v === 'ok', detail: v }]),
          ),
        }
  // H65, H66: refused requests of authenticated keys, counted per account and drained to their topic.
  const refusals = createRefusals(kafka, codec, cfg, metrics, log)
  const app = createIngestApp({
    cfg,
    keys,
    erasures,
    requestLimiter,
    eventLimiter,
    quota,
    shared,
    codec,
    appender,
    log,
    draining: () => closing,
    accepting: () => accepting && !closing,
    metrics,
    refusals: refusals.aggregator,
  })

  // H24: Node's defaults let a stalled client hold a connection for 60 s (headers) to 300 s (body),
  // checked only every 30 s. Headers get INGEST_HEADERS_TIMEOUT_MS; a body is cut by the reader at
  // BODY_READ_TIMEOUT_MS (http/body-reader.ts), and Node's request timeout backs it up for bodies
  // nobody reads; timeouts are checked every second; connections are capped.
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
  // Readiness and metrics on their own listener, off the public port (H36). While limits are enforced
  // locally, each readiness check, once answered, gives the fallback's probe schedule (one call per
  // REDIS_RETRY_MS) a call to ask Redis with, as the checks did when they passed the public port's
  // middleware: an idle instance finds Redis again without waiting for traffic (docs/limits.md). A
  // peek counts nothing.
  const afterReadiness = async () => {
    if (shared?.mode === 'local')
      await shared.peekRequest(ipBucket('readiness'), cfg.ipRequestsPerMinute, Date.now()).catch(() => undefined)
  }
  const adminServer: Server = createServer(createAdminApp({ readiness, metrics, log, afterReadiness }).callback())
  return {
    deps: { kafka, codec, keys, quota, appender, ch, redis, shared },
    /** Listening (for /health/live) before start() resolves. */
    server,
    /** Listening (for /health/ready and /metrics) before start() resolves. */
    adminServer,
    async start(): Promise<Server> {
      await listen(adminServer, cfg.admin.port, cfg.admin.host)
      await listen(server, cfg.port, cfg.host)
      log.info('ingest listening; waiting for its dependencies', {
        port: portOf(server, cfg.port),
        adminPort: portOf(adminServer, cfg.admin.port),
      })
      // Redis is never waited for beyond one connect and one ping: without an answer the limits are
      // enforced per instance until it comes (issue 14). The ping matters: until some call has been
      // answered the limiter is in local mode, where only one check per REDIS_RETRY_MS asks Redis, so
      // the first burst of requests after start would be counted per instance (CI saw 101 of 250).
      const redisConnected = redis
        ?.connect()
        .then(async () => {
          const sentAt = Date.now()
          await redis.ping()
          shared?.answered(sentAt)
        })
        .catch((err) => {
          log.warn('limiter: Redis not reachable at start; enforcing limits per instance until it is', {
            err: err as Error,
          })
          shared?.markUnreachable(Date.now(), `not reachable at start: ${(err as Error).message}`)
        })

      const eventLog = await prepareEventLog(kafka, codec, cfg, log, waits)
      // H37: what the topics take bounds the flushes and each request (413 before sending).
      const flushes = planFlushes(eventLog.maxMessageBytes, cfg.producer.maxBatchBytes)
      for (const w of flushes.warnings) log.warn(w)
      for (const lane of [plain, atomic]) lane?.useTopicLimits(eventLog.maxMessageBytes, flushes.maxBatchBytes)
      await Promise.all([plain.start(), atomic?.start(), refusals.start()])
      follower = await followAccounts(
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
      erasuresFollower = await followErasures(kafka, codec, cfg.topics.erasures!, (e) => erasures.apply(e), log, {
        groupPrefix: `ingest-erasures-${cfg.instanceId}`,
        ...waits,
      })
      await erasuresFollower.ready
      startup.set('accounts', 'ok')
      await redisConnected
      // Usage is best effort at start: the quota also counts what this instance accepts (H5).
      await refreshUsage().catch((err) =>
        log.warn('initial usage read failed (tables may not exist yet)', { err: err as Error }),
      )
      scheduleUsage()
      accepting = true
      log.info('ingest accepting', { keys: keys.keyCount })
      return server
    },
    async close() {
      closing = true
      stopping.abort()
      if (usageTimer) clearTimeout(usageTimer)
      if (server.listening) {
        // In-flight requests wait at most for their flush deadline; a little more for the answer.
        const { forced } = await drainServer(server, cfg.producer.flushTimeoutMs + 5_000)
        if (forced) log.warn('drain deadline passed; remaining connections closed')
      }
      // Readiness answers (503, draining) until the drain is done, so load balancers see it.
      if (adminServer.listening) await drainServer(adminServer, 1_000)
      await appender.close()
      await refusals.close()
      await follower?.stop()
      await erasuresFollower?.stop()
      await ch.close()
      redis?.disconnect()
    },
  }
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
