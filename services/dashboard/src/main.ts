// Composition root of the dashboard: builds the Kafka producer, registry codec and ClickHouse client
// at the edge, follows the accounts topic (AccountsAdmin: every account and key change is a record
// there, A1), and serves the front end and its JSON API on one origin. start() listens first, then
// waits for Kafka, the registry, ClickHouse and the accounts table (H27); meanwhile
// /health says which is missing and the API answers 503 with Retry-After.
import type { Server } from 'node:http'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createProducer } from '../../shared/src/kafka/client.js'
import { openClickHouse, waitForClickHouse } from '../../shared/src/clickhouse.js'
import { AccountsAdmin } from '../../shared/src/accounts/accounts-admin.js'
import { PrivacyAdmin } from '../../shared/src/privacy/privacy-admin.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { DEFAULT_PLANS, parsePlans } from '../../shared/src/accounts/plans.js'
import { loadDashboardConfig, type DashboardConfig } from './config.js'
import { HashGate, LoginThrottle, SignupThrottle, RequestThrottle, sessionAllowed } from './auth/index.js'
import { LiveStreams } from './api/live-streams.js'
import { DashboardQueries } from './api/queries.js'
import { DefinitionQueries } from './api/definitions-queries.js'
import { personQueries } from './api/persons-queries.js'
import { TrendQueries } from './api/trends-queries.js'
import { RefusedQueries } from './api/refused-queries.js'
import { LiveHistory } from './api/live-history.js'
import { createDashboardApp } from './http/app.js'
import { createEventLogClients, prepareEventLog } from '../../shared/src/event-log.js'
import { Readiness, waitFor } from '../../shared/src/wait-for.js'
import { isKafkaUnavailable } from '../../shared/src/unavailable.js'

export const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'public')
/** How often open live streams' sessions are checked against the account records (U4). */
const LIVE_SESSION_SWEEP_MS = 1000

export async function createDashboardService(cfg: DashboardConfig, log: Logger) {
  if (!cfg.liveToken) log.warn('LIVE_TOKEN is empty: the live stream page cannot read the projector feed')
  if (cfg.sessionSecretGenerated)
    log.warn('SESSION_SECRET is not set: using a random one; sessions end when the dashboard restarts')
  const plans = cfg.plansJson ? parsePlans(cfg.plansJson) : DEFAULT_PLANS

  const readiness = new Readiness(['kafka', 'registry', 'clickhouse', 'accounts'])
  const stopping = new AbortController()
  const waits = { signal: stopping.signal, readiness }
  const { kafka, codec } = createEventLogClients(cfg, 'dashboard', log)
  // The dashboard only reads event data: as the read-only user with bounded queries when one is configured (H23).
  if (!cfg.clickhouseRead.readOnlyUser)
    log.warn(
      "CLICKHOUSE_READ_USER is not set: the dashboard reads event data as CLICKHOUSE_USER, without the read-only user's query limits",
    )
  const ch = openClickHouse(cfg.clickhouseRead)
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 })
  const admin = new AccountsAdmin(kafka, producer, codec, cfg.topics.accounts, log)
  const privacy = new PrivacyAdmin(kafka, producer, codec, cfg.topics.erasures!, log)
  const liveStreams = new LiveStreams({
    perSession: cfg.liveStreamsPerSession,
    stillSignedIn: (s) => s.exp > Date.now() && sessionAllowed(s, admin.accounts.get(s.a)),
    sweepMs: LIVE_SESSION_SWEEP_MS,
  })

  const app = createDashboardApp({
    cfg,
    log,
    admin,
    privacy,
    plans,
    queries: new DashboardQueries(ch, cfg.clickhouseRead.database),
    definitions: new DefinitionQueries(ch, cfg.clickhouseRead.database),
    persons: personQueries(ch, cfg.clickhouseRead.database),
    trends: new TrendQueries(ch, cfg.clickhouseRead.database),
    refused: new RefusedQueries(ch, cfg.clickhouseRead.database),
    liveHistory: new LiveHistory(ch, cfg.clickhouseRead.database),
    liveStreams,
    requests: new RequestThrottle(),
    throttle: new LoginThrottle({ maxFailures: cfg.login.maxFailures, windowMs: cfg.login.windowMs }),
    signupThrottle: new SignupThrottle(cfg.signup),
    // Two scrypt calls at a time leave libuv's other two threads (of four) for DNS and files.
    hashGate: new HashGate({ running: 2, waiting: 64 }),
    publicDir: PUBLIC_DIR,
    ready: () => readiness.ready,
    health: async () => {
      // ClickHouse is asked now (once start() got that far); the rest is what start() last saw.
      if (readiness.snapshot().clickhouse !== 'starting') {
        try {
          await (await ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json()
          readiness.set('clickhouse', 'ok')
        } catch (err) {
          readiness.set('clickhouse', `unavailable: ${String((err as Error).message).slice(0, 120)}`)
        }
      }
      return { ok: readiness.ready, checks: readiness.snapshot() }
    },
  })

  let server: Server | undefined
  return {
    deps: { kafka, codec, producer, admin, privacy, ch, readiness },
    /** The server once start() has it listening (before the dependencies answer). */
    get server() {
      return server
    },
    async start(): Promise<Server> {
      server = app.listen(cfg.port, cfg.host)
      await new Promise<void>((resolve, reject) => {
        server!.once('listening', resolve)
        server!.once('error', reject)
      })
      const addr = server.address()
      log.info('dashboard listening', {
        url: `http://${cfg.host}:${typeof addr === 'object' && addr ? addr.port : cfg.port}`,
      })
      await prepareEventLog(kafka, codec, cfg, log, waits)
      await waitForClickHouse(ch, cfg.clickhouse.url, log, waits)
      await waitFor('kafka', () => producer.connect(), log, { ...waits, retryIf: isKafkaUnavailable })
      await admin.start(waits)
      await privacy.start(waits)
      readiness.set('accounts', 'ok')
      log.info('dashboard ready', { accounts: admin.accounts.size })
      return server
    },
    async close() {
      stopping.abort()
      liveStreams.endAll()
      if (server) {
        await new Promise<void>((resolve) => {
          server!.close(() => resolve())
          // Live streams are long-lived: end them so close() does not wait for the browser.
          server!.closeAllConnections?.()
        })
      }
      await admin.stop()
      await privacy.stop()
      await producer.disconnect()
      await ch.close()
    },
  }
}

runService('dashboard', import.meta.url, loadDashboardConfig, createDashboardService)
