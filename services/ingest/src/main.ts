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
import { openEventLog } from '../../shared/src/event-log.js'

export async function createIngestService(cfg: IngestConfig, log: Logger) {
  const { kafka, codec } = await openEventLog(cfg, 'ingest', log)

  const ch = await createClickHouse(cfg.clickhouse)

  // A pool of producers, each with its own transactional id (the first keeps the instance id), so
  // several flushes can be in flight while each stays one transaction (A4, issue 5).
  const producers = Array.from({ length: cfg.producer.poolSize }, (_, i) =>
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: cfg.producer.transactional ? 1 : 5,
      transactionalId: cfg.producer.transactional ? (i === 0 ? cfg.instanceId : `${cfg.instanceId}-${i}`) : undefined,
      createPartitioner: CachedDefaultPartitioner,
      // A transaction begun right after the previous commit is refused with CONCURRENT_TRANSACTIONS
      // until the broker has written the commit markers (a few ms); kafkajs retries the whole send
      // with this policy, so a 100 ms first step capped flushes at a few per second (issue 5). The
      // Java client backs off 20 ms there. Total patience stays about 4 s, as before (~3 s).
      retry: { initialRetryTime: 10, maxRetryTime: 1000, retries: 10 },
    }),
  )
  await Promise.all(producers.map((p) => p.connect()))
  const producer = producers[0]

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

  // Transactions: one flush per producer at a time. Plain sends: up to 4 flushes share the pool, as before.
  const maxInFlight = cfg.producer.transactional ? cfg.producer.poolSize : Math.max(4, cfg.producer.poolSize)
  const atomic = new RecordAppender(producers, { ...cfg.producer, maxInFlight }, log)
  // Requests that land in one partition are atomic without a transaction (lane-router.ts).
  const plainProducer = cfg.producer.transactional
    ? kafka.producer({ idempotent: true, maxInFlightRequests: 5, createPartitioner: CachedDefaultPartitioner, retry: { initialRetryTime: 10, maxRetryTime: 1000, retries: 10 } })
    : undefined
  await plainProducer?.connect()
  const appender = plainProducer
    ? new LaneRouter(new RecordAppender(plainProducer, { ...cfg.producer, transactional: false, maxInFlight: 4 }, log), atomic)
    : atomic
  const app = createIngestApp({
    cfg,
    keys,
    requestLimiter: new RequestLimiter(new MemoryLimiterStore()),
    eventLimiter: new EventRateLimiter(new MemoryLimiterStore()),
    quota,
    codec,
    appender,
    log,
  })

  let server: Server | undefined
  return {
    deps: { kafka, codec, producer, keys, quota, appender, ch },
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
      if (usageTimer) clearTimeout(usageTimer)
      if (server) {
        await new Promise<void>((resolve) => {
          server!.close(() => resolve())
          server!.closeIdleConnections?.()
        })
      }
      await appender.close()
      await follower.stop()
      await Promise.all([...producers, ...(plainProducer ? [plainProducer] : [])].map((p) => p.disconnect()))
      await ch.close()
    },
  }
}

runService('ingest', import.meta.url, loadIngestConfig, createIngestService)
