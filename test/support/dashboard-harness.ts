// Integration harness for the dashboard: the real ingest and projector from the shared harness
// (random topics, fresh ClickHouse database), plus the dashboard in this process on a random port
// with the same environment, and a small cookie-keeping HTTP client.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { startServices, type HarnessOptions, type Teardown, type TestServices } from './harness.js'
import { DashboardClient } from './dashboard-client.js'

export { DashboardClient, type ApiResponse } from './dashboard-client.js'
import { createLogger } from '../../services/shared/src/log.js'
import { loadDashboardConfig } from '../../services/dashboard/src/config.js'
import { createDashboardService } from '../../services/dashboard/src/main.js'

export interface DashboardTestServices extends TestServices {
  dashboardUrl: string
  dashboard: Awaited<ReturnType<typeof createDashboardService>>
  /** A fresh client with its own cookie jar (one browser); with `ip`, it comes through the trusted proxy as that address. */
  client(ip?: string): DashboardClient
}

export async function startDashboard(t: Teardown, opts: HarnessOptions = {}): Promise<DashboardTestServices> {
  const s = await startServices(t, opts)
  const env = {
    ...s.env,
    PROJECTOR_URL: s.projectorUrl,
    INGEST_URL: s.ingestUrl,
    DASHBOARD_PORT: '0',
    SESSION_SECRET: randomBytes(24).toString('hex'),
    ...opts.env,
  }
  const cfg = loadDashboardConfig(env)
  const dashboard = await createDashboardService(cfg, createLogger(cfg.logLevel, { svc: 'dashboard', test: s.suffix }))
  const server = await dashboard.start()
  t.teardown(() => dashboard.close())
  const dashboardUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { ...s, dashboardUrl, dashboard, client: (ip?: string) => new DashboardClient(dashboardUrl, ip) }
}
