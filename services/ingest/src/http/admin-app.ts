// The admin listener (H36): readiness and metrics on their own address (INGEST_ADMIN_HOST, loopback
// by default), never on the public port that browsers and mobile apps reach, since they show traffic
// volumes, the error mix and producer state. Operators, load balancers' readiness checks and
// Prometheus reach it from the private network; docs/security.md says what to put in front.
import Koa from 'koa'
import type { Logger } from '../../../shared/src/log.js'
import { serviceRoutes } from '../../../shared/src/http/index.js'
import type { IngestMetrics } from './metrics.js'
import type { Readiness } from './readiness.js'

export interface AdminDeps {
  readiness: () => Readiness
  metrics: IngestMetrics
  log: Logger
  /** Run after each readiness answer is made (main.ts: lets the limiter's fallback ask Redis whether it
   * is back, so the next answer says so). */
  afterReadiness?: () => Promise<void>
}

export function createAdminApp(d: AdminDeps): Koa {
  const app = new Koa({ proxy: false })
  // Liveness, readiness (twice: /health is its older name) and metrics, as every service answers them (H62).
  app.use(serviceRoutes(d))
  app.on('error', (err) => d.log.error('admin koa error', { err }))
  return app
}
