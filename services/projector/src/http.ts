// The projector's small HTTP surface: /health (readiness), /health/live (liveness), /metrics
// (Prometheus text) and /live (SSE). It listens before the dependencies answer, so an operator
// (or an orchestrator) can see what the projector is waiting for.
import { createServer, type Server } from 'node:http'
import type { Metrics } from './consume/metrics.js'
import type { LiveHub } from './live/live-hub.js'
import { handleLive, type LiveAuth, type LiveStreamOptions } from './live/sse.js'

export interface ProjectorHttpDeps {
  metrics: Metrics
  hub: LiveHub
  auth: LiveAuth
  /** Per-stream options of the live feed; defaults when absent. */
  live?: LiveStreamOptions
  /** Readiness: ok only when every dependency answers; checks names each one's state. */
  health: () => Promise<{ ok: boolean; checks: Record<string, string> }>
}

export function createProjectorServer(d: ProjectorHttpDeps): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'GET' && url.pathname === '/live') return handleLive(req, res, url, d.hub, d.auth, d.live)
    if (req.method === 'GET' && url.pathname === '/metrics') {
      d.metrics.render().then(
        (body) => {
          res.writeHead(200, { 'content-type': d.metrics.contentType })
          res.end(body)
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain' })
          res.end('metrics unavailable\n')
        },
      )
      return
    }
    if (req.method === 'GET' && url.pathname === '/health/live') {
      // Liveness: the process answers. Never depends on Kafka, the registry or ClickHouse, so an
      // outage of theirs does not get the projector restarted in a loop.
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ status: 'ok' }))
    }
    if (req.method === 'GET' && (url.pathname === '/health' || url.pathname === '/health/ready')) {
      d.health().then(
        (h) => {
          res.writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' })
          const missing = Object.keys(h.checks).filter((k) => h.checks[k] !== 'ok')
          res.end(
            JSON.stringify({
              status: h.ok ? 'ok' : 'not ready',
              ...(h.ok ? {} : { missing }),
              ...h.checks,
              lag: d.metrics.totalLag(),
            }),
          )
        },
        () => {
          res.writeHead(503, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ status: 'not ready' }))
        },
      )
      return
    }
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ success: false, error: { code: 'NOT_FOUND', message: 'No such endpoint' } }))
  })
}
