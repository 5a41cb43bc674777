// Composition root of the projector: builds the clients at the edge (no I/O), and in start()
// listens first, then waits for ClickHouse (applying the migrations), Kafka and the registry, the
// and starts consuming. A dependency that is down at start or lost later is waited
// for, never a reason to exit; /health says which one is missing meanwhile (H27).
// `close()` drains, also while start() is still waiting.
import type { Server } from 'node:http'
import { reportOf } from '../../shared/src/http/index.js'
import { createProducer } from '../../shared/src/kafka/client.js'
import { applyMigrations } from './clickhouse/apply-migrations.js'
import { TestRetention } from './retention/test-retention.js'
import { AccountRetention } from './retention/account-retention.js'
import { MonthKeysShredder } from './retention/month-keys.js'
import { KeysEraser, type KeysEraserOptions } from './privacy/keys-eraser.js'
import { erasureUserId, Pseudonyms } from '../../shared/src/privacy/erasure-identity.js'
import { MasterKeyRing } from '../../shared/src/privacy/crypto/index.js'
import type { ErasureRecord } from '../../../schemas/records.js'
import { RetentionRules } from '../../shared/src/privacy/retention.js'
import { followRetention } from '../../shared/src/privacy/retention-log.js'
import type { AccountsFollower } from '../../shared/src/accounts/accounts-log.js'
import { openClickHouse, waitForClickHouse } from '../../shared/src/clickhouse.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { Readiness, waitFor } from '../../shared/src/wait-for.js'
import { isKafkaUnavailable } from '../../shared/src/unavailable.js'
import { loadProjectorConfig, type ProjectorConfig } from './config.js'
import { ClickHouseWriter } from './clickhouse/writer.js'
import { Projector, type ProjectorOptions } from './consume/projector.js'
import { Metrics } from './consume/metrics.js'
import { LiveHub } from './live/live-hub.js'
import { DEFAULT_LIVE_STREAM } from './live/sse.js'
import { createProjectorServer } from './http.js'
import { createEventLogClients, prepareEventLog } from '../../shared/src/event-log.js'
import type { ClusterAccess } from './clickhouse/mutation-places.js'
import { ErasureWorker } from './privacy/erasure-worker.js'
import { writeUsageStubs, type UsageStub } from './privacy/usage-stubs.js'
import { KeysFollower, recentKeysSince } from './privacy/keys-holder.js'
import { RecordOpener } from './privacy/record-opener.js'
import { withRefusalProjection } from './refusals/refusals-projection.js'
import { countSettings, hourMarksFor } from './rollup/hour-marks.js'
import { HourRecount } from './rollup/recount.js'

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
  // A16: sealed records are opened with the keys the holder reads from the keys topic; A34: this month's
  // and last month's first, so projecting starts before a large topic's older keys are read.
  const keys = new KeysFollower(kafka, cfg.topics.keys!, MasterKeyRing.of(cfg.privacy), log, cfg.openCacheEntries, {
    recentSince: recentKeysSince(Date.now()),
  })
  // A12: erasures are followed before the consume loop starts, and purge what it wrote.
  const clients = { kafka, codec, producer, ch }
  const erasures = erasureWorker(cfg, clients, hub, () => projector.settled(), log, keys, metrics)
  metrics.erasures(() => erasures.pending())
  metrics.dataKeys(() => keys.holder.size)
  metrics.olderDataKeys(() => keys.holder.readingOlder)
  metrics.oldMasterDataKeys(() => keys.holder.keysOpenedByOldMaster)
  // U25: the writer marks the hours it wrote; the recount (hourRecount) counts them once closed.
  const writer = createWriter(ch, cfg, metrics, log)
  const options = projectorOptions(cfg, ch, readiness, erasures, keys)
  const projector = new Projector(kafka, producer, codec, writer, options, metrics, log)
  projector.onWritten((b) => hub.publish(b))

  const server = createProjectorServer({
    metrics,
    hub,
    live: { bufferBytes: cfg.live.bufferBytes, pingMs: DEFAULT_LIVE_STREAM.pingMs },
    auth: { liveToken: cfg.liveToken },
    health: () => health(ch, readiness),
  })

  const deps: ProjectorDeps = {
    ...{ ch, kafka, codec, producer, metrics, hub, projector, readiness, erasures, keys },
    retention: testRetention(cfg, ch, log),
    recount: hourRecount(cfg, ch, log),
    accountRetention: accountRetentionJob(cfg, { ...clients, metrics }, log, stopping.signal, waits),
  }
  // H57: the refusals topic is projected beside the walk, started after it and stopped before it.
  return withRefusalProjection(cfg, { kafka, codec, ch, registry: metrics.registry }, log, {
    deps,
    /** Listening (for /health) before start() resolves; the port is server.address() once 'listening'. */
    server,
    start: () => startProjector(cfg, log, deps, server, waits),
    close: () => {
      stopping.abort()
      return closeProjector(deps, server)
    },
  })
}

type ClickHouse = ReturnType<typeof openClickHouse>
interface ProjectorDeps {
  ch: ClickHouse
  kafka: ReturnType<typeof createEventLogClients>['kafka']
  codec: ReturnType<typeof createEventLogClients>['codec']
  producer: ReturnType<typeof createProducer>
  metrics: Metrics
  hub: LiveHub
  projector: Projector
  readiness: Readiness
  retention: TestRetention | undefined
  recount: HourRecount | undefined
  erasures: ErasureWorker
  keys: KeysFollower
  accountRetention: ReturnType<typeof accountRetentionJob> | undefined
}
type Waits = { signal: AbortSignal; readiness: Readiness }

/** The writer of the live tables; each duplicate it drops (H16) is counted and logged. */
function createWriter(ch: ClickHouse, cfg: ProjectorConfig, metrics: Metrics, log: Logger) {
  return new ClickHouseWriter(ch, cfg.clickhouse.database, {
    clustered: cfg.clickhouse.cluster !== undefined,
    hourMarks: hourMarksFor(ch, cfg.clickhouse.database, cfg),
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
}

function projectorOptions(
  cfg: ProjectorConfig,
  ch: ClickHouse,
  readiness: Readiness,
  erasures: ErasureWorker,
  keys: KeysFollower,
): ProjectorOptions {
  const keepUsage = (stubs: UsageStub[]) => writeUsageStubs(ch, cfg.clickhouse.database, stubs)
  return {
    groupId: cfg.groupId,
    topics: cfg.topics,
    maxRows: cfg.maxRows,
    maxWaitMs: cfg.maxWaitMs,
    retries: cfg.retries,
    fromBeginning: true,
    drainMs: cfg.drainMs,
    readiness,
    erasures: { set: erasures.set, keepUsage },
    sealed: { opener: new RecordOpener(keys.holder), keepUsage },
  }
}

/** U25: the closed dirty hours are counted every HOURLY_RECOUNT_MS, when HOURLY_COUNTS is on. */
function hourRecount(cfg: ProjectorConfig, ch: ClickHouse, log: Logger): HourRecount | undefined {
  return cfg.hourlyCounts ? new HourRecount(ch, cfg.clickhouse.database, log, countSettings(cfg)) : undefined
}

/** H35: test-key rows past TEST_RETENTION_DAYS are deleted, checked at start and every six hours. */
function testRetention(cfg: ProjectorConfig, ch: ClickHouse, log: Logger): TestRetention | undefined {
  if (cfg.testRetentionDays <= 0) return undefined
  return new TestRetention(ch, cfg.clickhouse.database, cfg.testRetentionDays, log)
}

/** ClickHouse is asked now; the others report what the consume loop last saw. */
async function health(ch: ClickHouse, readiness: Readiness) {
  if (readiness.snapshot().clickhouse !== 'starting') {
    const ping = await ch.ping().catch((err: unknown) => ({ success: false as const, error: err as Error }))
    readiness.set('clickhouse', ping.success ? 'ok' : `unavailable: ${String(ping.error?.message ?? '').slice(0, 120)}`)
  }
  return reportOf(readiness.snapshot())
}

/** Drains: stops serving and consuming (the projector writes and commits what it fetched), then the clients. */
async function closeProjector(deps: ProjectorDeps, server: Server) {
  deps.retention?.close()
  deps.recount?.close()
  server.close()
  server.closeAllConnections?.()
  await deps.projector.stop()
  await deps.erasures.stop()
  await deps.keys.stop()
  await deps.accountRetention?.stop()
  await deps.producer.disconnect()
  await deps.ch.close()
}

/** Listens first, then waits for ClickHouse (the migrations), the topics, Kafka and the erasures before consuming. */
async function startProjector(cfg: ProjectorConfig, log: Logger, deps: ProjectorDeps, server: Server, waits: Waits) {
  const { ch, kafka, codec, producer, projector, retention, erasures, keys } = deps
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
  deps.recount?.start(cfg.hourlyRecountMs)

  await prepareEventLog(kafka, codec, cfg, log, waits)
  await waitFor('kafka', () => producer.connect(), log, { ...waits, retryIf: isKafkaUnavailable })
  await waitFor('kafka', () => erasures.start(waits), log, { ...waits, retryIf: isKafkaUnavailable })
  await waitFor('kafka', () => keys.start(), log, { ...waits, retryIf: isKafkaUnavailable })
  await waitFor('kafka', () => projector.start(), log, { ...waits, retryIf: isKafkaUnavailable })
  deps.accountRetention?.start()
  log.info('projector consuming', { groupId: cfg.groupId })
  return server
}

/** The erasure worker (A12): it follows the erasures topic, purges the person's rows, and ends their live streams. */
function erasureWorker(
  cfg: ProjectorConfig,
  c: Pick<ProjectorDeps, 'kafka' | 'codec' | 'producer' | 'ch'>,
  hub: LiveHub,
  settled: () => Promise<void>,
  log: Logger,
  keys: KeysFollower,
  metrics: Metrics,
): ErasureWorker {
  return new ErasureWorker({
    ...c,
    metrics,
    database: cfg.clickhouse.database,
    topic: cfg.topics.erasures!,
    settled,
    closeLiveStreams: (accountId) =>
      hub.closeAccount(accountId, 'a user of this account was erased; reconnect to resume'),
    log,
    purge: { cluster: clusterAccess(cfg), mutationWaitMs: cfg.mutationWaitMs },
    retryMs: cfg.erasureRetryMs,
    keys: keysEraserOptions(cfg),
    pseudonyms: new Pseudonyms(cfg.privacy.pseudonymKey),
    // A22: a request's user id is sealed under its own key, which the holder reads with the data keys.
    userIdOf: async (e: ErasureRecord) => {
      await keys.holder.caughtUp()
      return erasureUserId(e, (id) => keys.holder.keyFor(id))
    },
  })
}

/** A17: with sealing off the history holds the person in clear, and no receipt may say it is unreadable. */
function keysEraserOptions(cfg: ProjectorConfig): KeysEraserOptions | undefined {
  return cfg.privacy.encrypt && cfg.topics.keys !== undefined
    ? { topic: cfg.topics.keys, pseudonymKey: cfg.privacy.pseudonymKey, checkMs: cfg.erasureDiskCheckMs }
    : undefined
}

/** H61: the cluster the mutations of the purge and the retention go to, with the projector's credentials. */
function clusterAccess(cfg: ProjectorConfig): ClusterAccess | undefined {
  const { cluster, username, password } = cfg.clickhouse
  return cluster === undefined ? undefined : { name: cluster, user: username, password }
}

/**
 * H60: each account's retention, followed from the accounts topic; expired rows are deleted at start and
 * every hour. In the background: the consume loop and a stop never wait for it (a registry away stalls
 * the follower). Not on a cluster: its deletes of past months would wait for ever there (H61).
 */
function accountRetentionJob(
  cfg: ProjectorConfig,
  c: Pick<ProjectorDeps, 'ch' | 'kafka' | 'codec' | 'metrics' | 'producer'>,
  log: Logger,
  signal: AbortSignal,
  waits: Waits,
) {
  if (cfg.clickhouse.cluster) return undefined
  const rules = new RetentionRules()
  const registry = c.metrics.registry
  // A23: with sealing on, the expired months' data keys are tombstoned and watched as an erasure's are.
  const keys = keysEraserOptions(cfg)
  const shredder = keys && new MonthKeysShredder(new KeysEraser(c.kafka, c.producer, keys), log, registry)
  const job = new AccountRetention(c.ch, cfg.clickhouse.database, rules, log, {
    registry,
    keys: shredder,
    mutationWaitMs: cfg.mutationWaitMs,
  })
  let follower: AccountsFollower | undefined
  const run = async () => {
    try {
      const follow = () =>
        followRetention(c.kafka, c.codec, cfg.topics.accounts, rules, log, 'projector-retention', signal)
      follower = await waitFor('kafka', follow, log, { ...waits, retryIf: isKafkaUnavailable })
      if (signal.aborted) return void (await follower.stop())
      await follower.ready
      if (!signal.aborted) job.start(3600_000)
    } catch (err) {
      if (!signal.aborted) log.error('account retention (H60) not started', { err: err as Error })
    }
  }
  return {
    job,
    start: () => void run(),
    async stop() {
      job.close()
      await follower?.stop()
    },
  }
}

runService('projector', import.meta.url, loadProjectorConfig, createProjectorService)
