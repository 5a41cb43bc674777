// The projector's small HTTP surface: /health (readiness), /health/live (liveness), /metrics
// (Prometheus text), answered by the shared skeleton as every service answers them (H62), and /live
// (SSE), which writes the socket itself. It listens before the dependencies answer, so an operator
// (or an orchestrator) can see what the projector is waiting for.
import { createServer, type Server } from 'node:http'
import {
  notFoundAnswer,
  type ReadinessReport,
  sendAnswer,
  serviceAnswer,
  type ServiceRoutes,
} from '../../shared/src/http/index.js'
import type { Metrics } from './consume/metrics.js'
import type { LiveHub } from './live/live-hub.js'
import { handleLive, type LiveAuth, type LiveStreamOptions } from './live/sse.js'

export interface ProjectorHttpDeps {
  metrics: Metrics
  hub: LiveHub
  auth: LiveAuth
  /** Per-stream options of the live feed; defaults when absent. */
  live?: LiveStreamOptions
  /** Readiness: ready only when every dependency answers; checks names each one's state. */
  health: () => Promise<ReadinessReport>
}

export function createProjectorServer(d: ProjectorHttpDeps): Server {
  const routes: ServiceRoutes = { readiness: () => withLag(d), metrics: d.metrics }
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/live') return handleLive(req, res, url, d.hub, d.auth, d.live)
    serviceAnswer(req.method ?? 'GET', url.pathname, routes).then(
      (a) => sendAnswer(res, a ?? notFoundAnswer('No such endpoint')),
      (err: unknown) => res.destroy(err as Error),
    )
  })
}

/** Readiness with the records still to project, as a check that never fails (lag is a load figure,
 *  not a reason to route around the projector; /metrics has it per partition). */
async function withLag(d: ProjectorHttpDeps): Promise<ReadinessReport> {
  const r = await d.health()
  return { ready: r.ready, checks: { ...r.checks, lag: { ok: true, detail: `${d.metrics.totalLag()} records` } } }
}
