// The routes every service answers the same way: GET /health/live, GET /health/ready and its older
// name GET /health, and GET /metrics, each only when the service gives what it needs. One function
// decides, so the Koa services and the projector's Node server cannot drift apart (H62).
import type { ParameterizedContext, Next } from 'koa'
import { type Answer, setAnswer } from './answer.js'
import { type ReadinessReport, liveAnswer, readinessAnswer } from './health.js'
import { type MetricsSource, metricsAnswer } from './metrics.js'

export interface ServiceRoutes {
  /** Readiness now; a failure to find out is an unready answer. */
  readiness?: () => ReadinessReport | Promise<ReadinessReport>
  metrics?: MetricsSource
  /** Run after each readiness answer is made (ingest: lets the limiter's fallback probe Redis). */
  afterReadiness?: () => Promise<void>
}

/** The answer of one of those routes, or undefined when the request is for another. */
export async function serviceAnswer(method: string, path: string, d: ServiceRoutes): Promise<Answer | undefined> {
  if (method !== 'GET' && method !== 'HEAD') return undefined
  if (path === '/health/live') return liveAnswer()
  if (d.readiness && (path === '/health/ready' || path === '/health')) {
    const report = await Promise.resolve()
      .then(d.readiness)
      .catch((err: unknown) => ({
        ready: false,
        checks: { readiness: { ok: false, detail: `unavailable: ${String((err as Error)?.message).slice(0, 120)}` } },
      }))
    const a = readinessAnswer(report)
    await d.afterReadiness?.()
    return a
  }
  if (d.metrics && path === '/metrics') return metricsAnswer(d.metrics)
  return undefined
}

/** The same routes as Koa middleware; other requests go on to the next. */
export function serviceRoutes(d: ServiceRoutes) {
  return async (ctx: ParameterizedContext, next: Next) => {
    const a = await serviceAnswer(ctx.method, ctx.path, d)
    if (a) setAnswer(ctx, a)
    else await next()
  }
}
