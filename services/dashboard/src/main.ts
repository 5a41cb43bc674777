// Composition root of the dashboard: builds the Kafka producer, registry codec and ClickHouse client
// at the edge, follows the accounts topic (AccountsAdmin: every account and key change is a record
// there, A1), and serves the front end and its JSON API on one origin.
import type { Server } from 'node:http'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Partitioners } from 'kafkajs'
import { createClickHouse } from '../../shared/src/clickhouse.js'
import { AccountsAdmin } from '../../shared/src/accounts-admin.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { DEFAULT_PLANS, parsePlans } from '../../ingest/src/limits/plans.js'
import { loadDashboardConfig, type DashboardConfig } from './config.js'
import { HashGate, LoginThrottle, SignupThrottle } from './auth/index.js'
import { DashboardQueries } from './api/queries.js'
import { createDashboardApp } from './http/app.js'
import { openEventLog } from '../../shared/src/event-log.js'

export const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'public')

export async function createDashboardService(cfg: DashboardConfig, log: Logger) {
  if (!cfg.liveToken) log.warn('LIVE_TOKEN is empty: the live stream page cannot read the projector feed')
  if (cfg.sessionSecretGenerated) log.warn('SESSION_SECRET is not set: using a random one; sessions end when the dashboard restarts')
  const plans = cfg.plansJson ? parsePlans(cfg.plansJson) : DEFAULT_PLANS

  const { kafka, codec } = await openEventLog(cfg, 'dashboard', log)
  const ch = await createClickHouse(cfg.clickhouse)
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  const admin = new AccountsAdmin(kafka, producer, codec, cfg.topics.accounts, log)

  const app = createDashboardApp({
    cfg,
    log,
    admin,
    plans,
    queries: new DashboardQueries(ch, cfg.clickhouse.database),
    throttle: new LoginThrottle({ maxFailures: cfg.login.maxFailures, windowMs: cfg.login.windowMs }),
    signupThrottle: new SignupThrottle(cfg.signup),
    // Two scrypt calls at a time leave libuv's other two threads (of four) for DNS and files.
    hashGate: new HashGate({ running: 2, waiting: 64 }),
    publicDir: PUBLIC_DIR,
    health: async () => {
      const checks: Record<string, string> = { accounts: 'ok' }
      let ok = true
      try {
        await (await ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json()
        checks.clickhouse = 'ok'
      } catch {
        checks.clickhouse = 'unavailable'
        ok = false
      }
      return { ok, checks }
    },
  })

  let server: Server | undefined
  return {
    deps: { kafka, codec, producer, admin, ch },
    async start(): Promise<Server> {
      await admin.start()
      server = app.listen(cfg.port, cfg.host)
      await new Promise<void>((resolve, reject) => {
        server!.once('listening', resolve)
        server!.once('error', reject)
      })
      const addr = server.address()
      log.info('dashboard listening', { url: `http://${cfg.host}:${typeof addr === 'object' && addr ? addr.port : cfg.port}`, accounts: admin.accounts.size })
      return server
    },
    async close() {
      if (server) {
        await new Promise<void>((resolve) => {
          server!.close(() => resolve())
          // Live streams are long-lived: end them so close() does not wait for the browser.
          server!.closeAllConnections?.()
        })
      }
      await admin.stop()
      await producer.disconnect()
      await ch.close()
    },
  }
}

runService('dashboard', import.meta.url, loadDashboardConfig, createDashboardService)
