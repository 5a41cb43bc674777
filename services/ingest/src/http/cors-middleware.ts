// CORS for /v1/* (H15): browsers send from any allowed origin with a bearer key, never cookies.
import type Koa from 'koa'
import type { Ctx } from './context.js'
import { allowedOrigin, type CorsPolicy } from './cors.js'

export function cors(origins: CorsPolicy) {
  return async (ctx: Ctx, next: Koa.Next) => {
    if (ctx.path.startsWith('/v1/')) {
      const allow = allowedOrigin(origins, ctx.get('origin') || undefined)
      // Every /v1 request passes here: on the node response directly, as ctx.set would end up
      // doing after allocating arrays per call (bench/HISTORY.md). Nothing is sent yet at this point.
      const res = ctx.res
      if (allow) res.setHeader('Access-Control-Allow-Origin', allow)
      res.setHeader(
        'Access-Control-Expose-Headers',
        'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Window, Retry-After',
      )
      if (origins !== '*') res.setHeader('Vary', 'Origin')
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS')
        ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Content-Encoding')
        ctx.set('Access-Control-Max-Age', '86400')
        ctx.status = 204
        return
      }
    }
    await next()
  }
}
