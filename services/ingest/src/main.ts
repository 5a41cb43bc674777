// Composition root of the ingest service: builds the Kafka, registry and ClickHouse clients at the
// edge, checks each, follows the accounts topic into the key table (A1), and serves HTTP.
// `close()` drains: stop taking requests, flush the appender, disconnect.
import type { Server } from 'node:http'
import { createClickHouse } from '../../shared/src/clickhouse.js'
import { followAccounts } from '../../shared/src/accounts-log.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { monthlyLiveUsage } from '../../projector/src/usage/usage-query.js'
import { loadIngestConfig, type IngestConfig } from './config.js'
import { KeyTable } from './auth/index.js'
import { RequestLimiter, EventRateLimiter, MonthlyQuota, MemoryLimiterStore, monthKeyOf, DEFAULT_PLANS, parsePlans } from './limits/index.js'
import { RecordAppender } from './kafka/record-appender.js'
import { LaneRouter } from './kafka/lane-router.js'
import { CachedDefaultPartitioner } from './kafka/partitioner.js'
import { createIngestApp } from './http/app.js'
import { drainServer } from './http/drain.js'
import { readinessOf } from './http/readiness.js'
import { IngestMetrics } from './http/metrics.js'
import { openEventLog } from '../../shared/src/event-log.js'

export async function createIngestService(cfg: IngestConfig, log: Logger) {
  const { kafka, codec } = await openEventLog(cfg, 'ingest', log)

  const ch = await createClickHouse(cfg.clickhouse)

  const plans = cfg.plansJson ? parsePlans(cfg.plansJson) : DEFAULT_PLANS
  const keys = new KeyTable({ plans })
  const follower = await followAccounts(kafka, codec, cfg.topics.accounts, (e) => {
    if (e.kind === 'Account') keys.applyAccount(e.value)
    else if (e.kind === 'Plan') keys.applyPlan(e.value)
    else keys.applyKey(e.value)
  }, log, { groupPrefix: `ingest-accounts-${cfg.instanceId}` })

  const quota = new MonthlyQuota()
  // H5: the month's live usage comes from the projector's counters, refreshed in the background.
  const refreshUsage = async () => {
    const month = monthKeyOf(Date.now())
    const usage = await monthlyLiveUsage(ch, cfg.clickhouse.database, month)
    for (const [account, count] of usage) quota.setProjectedUsage(account, month, count)
  }
  let usageTimer: NodeJS.Timeout | undefined
  const scheduleUsage = () => {
    usageTimer = setTimeout(() => {
      refreshUsage().catch((err) => log.warn('usage refresh failed; enforcing from local counts', { err })).finally(scheduleUsage)
    }, cfg.usageRefreshMs)
    usageTimer.unref()
  }

  const metrics: IngestMetrics = new IngestMetrics({
    queuedRecords: () => appender.health().queuedRecords,
    appenderStats: () => appender.stats,
    ready: () => readiness().ready,
    accountsSilenceMs: () => follower.silenceMs(),
  })

  // Producers are made by factories, not once: a producer whose send failed is replaced
  // (record-appender.ts). Slot i of the transactional pool keeps one transactional id, so the
  // replacement's new epoch fences the retired producer.
  const retry = { initialRetryTime: 10, maxRetryTime: 1000, retries: 10 }
  const idempotentProducer = () =>
    kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: CachedDefaultPartitioner, retry })
  const transactionalProducer = (i: number) =>
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      transactionalId: i === 0 ? cfg.instanceId : `${cfg.instanceId}-${i}`,
      createPartitioner: CachedDefaultPartitioner,
      // A transaction begun right after the previous commit is refused with CONCURRENT_TRANSACTIONS
      // until the broker has written the commit markers (a few ms); kafkajs retries the whole send
      // with this policy, so a short first step matters (BENCHMARKS.md). The Java client backs off 20 ms.
      retry,
    })
  const common = { lingerMs: cfg.producer.lingerMs, maxBatchRecords: cfg.producer.maxBatchRecords, flushTimeoutMs: cfg.producer.flushTimeoutMs, maxQueuedRecords: cfg.producer.maxQueuedRecords }
  // Requests that land in one partition are atomic without a transaction (lane-router.ts); with
  // transactions off, every request takes the plain lane.
  const plain = new RecordAppender(
    idempotentProducer,
    { ...common, transactional: false, poolSize: cfg.producer.plainPoolSize, onFlush: (n, s, ok) => metrics.flush('plain', n, s, ok) },
    log,
  )
  const atomic = cfg.producer.transactional
    ? new RecordAppender(
      transactionalProducer,
      { ...common, transactional: true, poolSize: cfg.producer.poolSize, onFlush: (n, s, ok) => metrics.flush('transactional', n, s, ok) },
      log,
    )
    : undefined
  await Promise.all([plain.start(), atomic?.start()])
  const appender = atomic ? new LaneRouter(plain, atomic) : plain
  let closing = false
  const readiness = () => readinessOf({ appender, accounts: follower, draining: () => closing })
  const app = createIngestApp({
    cfg,
    keys,
    requestLimiter: new RequestLimiter(new MemoryLimiterStore()),
    eventLimiter: new EventRateLimiter(new MemoryLimiterStore()),
    quota,
    codec,
    appender,
    log,
    draining: () => closing,
    readiness,
    metrics,
  })

  let server: Server | undefined
  return {
    deps: { kafka, codec, keys, quota, appender, ch },
    async start(): Promise<Server> {
      await follower.ready
      await refreshUsage().catch((err) => log.warn('initial usage read failed (tables may not exist yet)', { err: err as Error }))
      scheduleUsage()
      server = app.listen(cfg.port, cfg.host)
      server.keepAliveTimeout = 65_000
      await new Promise<void>((resolve, reject) => {
        server!.once('listening', resolve)
        server!.once('error', reject)
      })
      const addr = server.address()
      log.info('ingest listening', { port: typeof addr === 'object' && addr ? addr.port : cfg.port, keys: keys.keyCount })
      return server
    },
    async close() {
      closing = true
      if (usageTimer) clearTimeout(usageTimer)
      if (server) {
        // In-flight requests wait at most for their flush deadline; a little more for the answer.
        const { forced } = await drainServer(server, cfg.producer.flushTimeoutMs + 5_000)
        if (forced) log.warn('drain deadline passed; remaining connections closed')
      }
      await appender.close()
      await follower.stop()
      await ch.close()
    },
  }
}

runService('ingest', import.meta.url, loadIngestConfig, createIngestService)
