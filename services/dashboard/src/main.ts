// Composition root of the dashboard: builds the Kafka producer, registry codec and ClickHouse client
// at the edge, follows the accounts topic (AccountsAdmin: every account and key change is a record
// there, A1), and serves the front end and its JSON API on one origin. start() listens first, then
// waits for Kafka, the registry, ClickHouse and the accounts table (H27); meanwhile
// /health says which is missing and the API answers 503 with Retry-After.
import type { Server } from 'node:http'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createProducer } from '../../shared/src/kafka/client.js'
import type { ClickHouseClient as ClickHouse } from '@clickhouse/client'
import { openClickHouse, waitForClickHouse } from '../../shared/src/clickhouse.js'
import { AccountsAdmin } from '../../shared/src/accounts/accounts-admin.js'
import { erasureSealing, PrivacyAdmin } from '../../shared/src/privacy/privacy-admin.js'
import type { Logger } from '../../shared/src/log.js'
import { type ReadinessReport, reportOf } from '../../shared/src/http/index.js'
import { runService } from '../../shared/src/run-service.js'
import { DEFAULT_PLANS, parsePlans } from '../../shared/src/accounts/plans.js'
import { loadDashboardConfig, type DashboardConfig } from './config.js'
import { HashGate, LoginThrottle, SignupThrottle, RequestThrottle, sessionAllowed } from './auth/index.js'
import { LiveStreams } from './api/live-streams.js'
import { DashboardQueries } from './api/queries.js'
import { DefinitionQueries } from './api/definitions-queries.js'
import { personQueries } from './api/persons-queries.js'
import { TrendQueries } from './api/trends-queries.js'
import { FunnelQueries } from './api/funnels-queries.js'
import { RetentionQueries } from './api/retention-queries.js'
import { RefusedQueries } from './api/refused-queries.js'
import { LiveHistory } from './api/live-history.js'
import { createDashboardApp } from './http/app.js'
import { createEventLogClients, prepareEventLog } from '../../shared/src/event-log.js'
import { Readiness, waitFor } from '../../shared/src/wait-for.js'
import { isKafkaUnavailable } from '../../shared/src/unavailable.js'

export const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'public')
/** How often open live streams' sessions are checked against the account records (U4). */
const LIVE_SESSION_SWEEP_MS = 1000

/** Builds the clients and the app (no I/O); start() listens, then waits for what the dashboard reads. */
export async function createDashboardService(cfg: DashboardConfig, log: Logger) {
  warnAboutConfig(cfg, log)
  const readiness = new Readiness(['kafka', 'registry', 'clickhouse', 'accounts'])
  const stopping = new AbortController()
  const clients = createClients(cfg, log)
  const { admin, ch } = clients
  const liveStreams = new LiveStreams({
    perSession: cfg.liveStreamsPerSession,
    stillSignedIn: (s) => s.exp > Date.now() && sessionAllowed(s, admin.accounts.get(s.a)),
    sweepMs: LIVE_SESSION_SWEEP_MS,
  })
  const app = createDashboardApp({
    cfg,
    log,
    admin,
    privacy: clients.privacy,
    plans: cfg.plansJson ? parsePlans(cfg.plansJson) : DEFAULT_PLANS,
    ...eventDataReads(ch, cfg.clickhouseRead.database, cfg.hourlyCounts),
    liveStreams,
    ...throttles(cfg),
    publicDir: PUBLIC_DIR,
    ready: () => readiness.ready,
    health: () => dashboardHealth(ch, readiness),
  })
  const parts: Parts = { cfg, log, clients, liveStreams, waits: { signal: stopping.signal, readiness } }
  let server: Server | undefined
  return {
    deps: { ...clients, readiness },
    /** The server once start() has it listening (before the dependencies answer). */
    get server() {
      return server
    },
    start: async (): Promise<Server> => {
      server = await listen(app, cfg, log)
      await startDashboard(parts)
      return server
    },
    close: () => {
      stopping.abort()
      return closeDashboard(parts, server)
    },
  }
}

type Clients = ReturnType<typeof createClients>

interface Parts {
  cfg: DashboardConfig
  log: Logger
  clients: Clients
  liveStreams: LiveStreams
  waits: { signal: AbortSignal; readiness: Readiness }
}

function warnAboutConfig(cfg: DashboardConfig, log: Logger): void {
  if (!cfg.liveToken) log.warn('LIVE_TOKEN is empty: the live stream page cannot read the projector feed')
  if (cfg.sessionSecretGenerated)
    log.warn('SESSION_SECRET is not set: using a random one; sessions end when the dashboard restarts')
  // The dashboard only reads event data: as the read-only user with bounded queries when one is configured (H23).
  if (!cfg.clickhouseRead.readOnlyUser)
    log.warn(
      "CLICKHOUSE_READ_USER is not set: the dashboard reads event data as CLICKHOUSE_USER, without the read-only user's query limits",
    )
}

/** Kafka, the registry codec and ClickHouse, and the admins that write account and erasure records (A1). */
function createClients(cfg: DashboardConfig, log: Logger) {
  const { kafka, codec } = createEventLogClients(cfg, 'dashboard', log)
  const ch = openClickHouse(cfg.clickhouseRead)
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 })
  const admin = new AccountsAdmin(kafka, producer, codec, cfg.topics.accounts, log)
  const privacy = new PrivacyAdmin(kafka, producer, codec, cfg.topics.erasures!, log, erasureSealing(cfg))
  return { kafka, codec, producer, admin, privacy, ch }
}

/** The API's reads of event data, each on the read-only ClickHouse client. */
function eventDataReads(ch: ClickHouse, database: string, hourlyCounts: boolean) {
  return {
    queries: new DashboardQueries(ch, database),
    definitions: new DefinitionQueries(ch, database, hourlyCounts),
    persons: personQueries(ch, database),
    trends: new TrendQueries(ch, database, hourlyCounts),
    funnels: new FunnelQueries(ch, database),
    retention: new RetentionQueries(ch, database),
    refused: new RefusedQueries(ch, database),
    liveHistory: new LiveHistory(ch, database),
  }
}

function throttles(cfg: DashboardConfig) {
  return {
    requests: new RequestThrottle(),
    throttle: new LoginThrottle({ maxFailures: cfg.login.maxFailures, windowMs: cfg.login.windowMs }),
    signupThrottle: new SignupThrottle(cfg.signup),
    // Two scrypt calls at a time leave libuv's other two threads (of four) for DNS and files.
    hashGate: new HashGate({ running: 2, waiting: 64 }),
  }
}

/** ClickHouse is asked now (once start() got that far); the rest is what start() last saw. */
async function dashboardHealth(ch: ClickHouse, readiness: Readiness): Promise<ReadinessReport> {
  if (readiness.snapshot().clickhouse !== 'starting') {
    try {
      await (await ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json()
      readiness.set('clickhouse', 'ok')
    } catch (err) {
      readiness.set('clickhouse', `unavailable: ${String((err as Error).message).slice(0, 120)}`)
    }
  }
  return reportOf(readiness.snapshot())
}

/** Listens first (H27): /health says what is missing and the API answers 503 meanwhile. */
async function listen(app: ReturnType<typeof createDashboardApp>, cfg: DashboardConfig, log: Logger) {
  const server = app.listen(cfg.port, cfg.host)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const addr = server.address()
  log.info('dashboard listening', {
    url: `http://${cfg.host}:${typeof addr === 'object' && addr ? addr.port : cfg.port}`,
  })
  return server
}

/** Waits for the topics and registry, ClickHouse, Kafka, then follows the accounts and erasures topics. */
async function startDashboard({ cfg, log, clients, waits }: Parts): Promise<void> {
  const { kafka, codec, producer, admin, privacy, ch } = clients
  await prepareEventLog(kafka, codec, cfg, log, waits)
  await waitForClickHouse(ch, cfg.clickhouse.url, log, waits)
  await waitFor('kafka', () => producer.connect(), log, { ...waits, retryIf: isKafkaUnavailable })
  await admin.start(waits)
  await privacy.start(waits)
  waits.readiness.set('accounts', 'ok')
  log.info('dashboard ready', { accounts: admin.accounts.size })
}

async function closeDashboard({ clients, liveStreams }: Parts, server: Server | undefined): Promise<void> {
  liveStreams.endAll()
  if (server) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      // Live streams are long-lived: end them so close() does not wait for the browser.
      server.closeAllConnections?.()
    })
  }
  await clients.admin.stop()
  await clients.privacy.stop()
  await clients.producer.disconnect()
  await clients.ch.close()
}

runService('dashboard', import.meta.url, loadDashboardConfig, createDashboardService)
