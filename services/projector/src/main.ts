// Composition root of the projector: builds the clients at the edge (no I/O), and in start()
// listens first, then waits for ClickHouse (applying the migrations), Kafka and the registry, the
// and starts consuming. A dependency that is down at start or lost later is waited
// for, never a reason to exit; /health says which one is missing meanwhile (H27).
// `close()` drains, also while start() is still waiting.
import { createProducer } from '../../shared/src/kafka/client.js'
import { applyMigrations } from './clickhouse/apply-migrations.js'
import { TestRetention } from './retention/test-retention.js'
import { openClickHouse, waitForClickHouse } from '../../shared/src/clickhouse.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { Readiness, waitFor } from '../../shared/src/wait-for.js'
import { isKafkaUnavailable } from '../../shared/src/unavailable.js'
import { loadProjectorConfig, type ProjectorConfig } from './config.js'
import { ClickHouseWriter } from './clickhouse/writer.js'
import { Projector } from './consume/projector.js'
import { Metrics } from './consume/metrics.js'
import { LiveHub } from './live/live-hub.js'
import { DEFAULT_LIVE_STREAM } from './live/sse.js'
import { createProjectorServer } from './http.js'
import { createEventLogClients, prepareEventLog } from '../../shared/src/event-log.js'
import { ErasureWorker } from './privacy/erasure-worker.js'
import { writeUsageStubs } from './privacy/usage-stubs.js'

export async function createProjectorService(cfg: ProjectorConfig, log: Logger) {
  const readiness = new Readiness(['clickhouse', 'kafka', 'registry'])
  const stopping = new AbortController()
  const waits = { signal: stopping.signal, readiness }

  const ch = openClickHouse(cfg.clickhouse)
  const { kafka, codec } = createEventLogClients(cfg, 'projector', log)
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 5 })

  const metrics = new Metrics()
  const hub = new LiveHub({ maxStreams: cfg.live.maxStreams, maxStreamsPerAccount: cfg.live.maxStreamsPerAccount })
  metrics.liveSubscribers(() => hub.subscribers)
  const writer = new ClickHouseWriter(ch, cfg.clickhouse.database, {
    clustered: cfg.clickhouse.cluster !== undefined,
    onDuplicates: (dropped) => {
      for (const d of dropped) {
        metrics.duplicatesDropped(d.kind, 1)
        log.debug('duplicate record dropped: event_id already stored', {
          kind: d.kind,
          event_id: d.event_id,
          account_id: d.account_id,
          message_id: d.message_id,
        })
      }
    },
  })
  // A12: erasures are followed before the consume loop starts, and purge what it wrote.
  const erasures = new ErasureWorker({
    kafka,
    codec,
    producer,
    ch,
    database: cfg.clickhouse.database,
    topic: cfg.topics.erasures!,
    settled: (): Promise<void> => projector.settled(),
    closeLiveStreams: (accountId) =>
      hub.closeAccount(accountId, 'a user of this account was erased; reconnect to resume'),
    log,
  })
  const projector = new Projector(
    kafka,
    producer,
    codec,
    writer,
    {
      groupId: cfg.groupId,
      topics: cfg.topics,
      maxRows: cfg.maxRows,
      maxWaitMs: cfg.maxWaitMs,
      retries: cfg.retries,
      fromBeginning: true,
      drainMs: cfg.drainMs,
      readiness,
      erasures: { set: erasures.set, keepUsage: (stubs) => writeUsageStubs(ch, cfg.clickhouse.database, stubs) },
    },
    metrics,
    log,
  )
  projector.onWritten((b) => hub.publish(b))

  const server = createProjectorServer({
    metrics,
    hub,
    live: { bufferBytes: cfg.live.bufferBytes, pingMs: DEFAULT_LIVE_STREAM.pingMs },
    auth: { liveToken: cfg.liveToken },
    health: async () => {
      // ClickHouse is asked now; the others report what the consume loop last saw.
      if (readiness.snapshot().clickhouse !== 'starting') {
        const ping = await ch.ping().catch((err: unknown) => ({ success: false as const, error: err as Error }))
        readiness.set(
          'clickhouse',
          ping.success ? 'ok' : `unavailable: ${String(ping.error?.message ?? '').slice(0, 120)}`,
        )
      }
      return { ok: readiness.ready, checks: readiness.snapshot() }
    },
  })

  // H35: test-key rows past TEST_RETENTION_DAYS are deleted, checked at start and every six hours.
  const retention =
    cfg.testRetentionDays > 0 ? new TestRetention(ch, cfg.clickhouse.database, cfg.testRetentionDays, log) : undefined

  return {
    deps: { ch, kafka, codec, producer, metrics, hub, projector, readiness, retention, erasures },
    /** Listening (for /health) before start() resolves; the port is server.address() once 'listening'. */
    server,
    async start() {
      await new Promise<void>((resolve) => server.listen(cfg.port, cfg.host, resolve))
      const addr = server.address()
      log.info('projector listening', { port: typeof addr === 'object' && addr ? addr.port : cfg.port })

      const applied = await waitForClickHouse(ch, cfg.clickhouse.url, log, {
        ...waits,
        step: () => applyMigrations(cfg.clickhouse, cfg.clickhouse.database, (m: string) => log.info(m)),
      })
      log.info('clickhouse migrations applied', {
        database: cfg.clickhouse.database,
        applied: applied.applied.map((m) => m.file),
      })
      retention?.start(6 * 3600_000)

      await prepareEventLog(kafka, codec, cfg, log, waits)
      await waitFor('kafka', () => producer.connect(), log, { ...waits, retryIf: isKafkaUnavailable })
      await waitFor('kafka', () => erasures.start(waits), log, { ...waits, retryIf: isKafkaUnavailable })
      await waitFor('kafka', () => projector.start(), log, { ...waits, retryIf: isKafkaUnavailable })
      log.info('projector consuming', { groupId: cfg.groupId })
      return server
    },
    async close() {
      stopping.abort()
      retention?.close()
      server.close()
      server.closeAllConnections?.()
      await projector.stop()
      await erasures.stop()
      await producer.disconnect()
      await ch.close()
    },
  }
}

runService('projector', import.meta.url, loadProjectorConfig, createProjectorService)
