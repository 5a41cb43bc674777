// H2 steps 1 and 2: the bearer key (H1), then the account's per-minute window (H3). Requests
// without a valid key are throttled per client address instead.
import type Koa from 'koa'
import type { KeyTable } from '../../../shared/src/accounts/key-table.js'
import { hashKey } from '../../../shared/src/accounts/key-hash.js'
import { errors } from '../errors.js'
import { parseAuthorization } from '../auth/index.js'
import { accountBucket, ipBucket, rateLimitError, type RequestLimiter, type SharedLimits } from '../limits/index.js'
import type { Ctx } from './context.js'

export interface AuthenticateDeps {
  keys: KeyTable
  requestLimiter: RequestLimiter
  /** With REDIS_URL: the per-minute counts of every instance (one script call per request). */
  shared?: SharedLimits
  acceptedKeyTypes: ReadonlySet<'live' | 'test'>
  ipRequestsPerMinute: number
  now: () => number
  /** False until the key table is loaded (and while draining). */
  accepting?: () => boolean
}

export function authenticate(d: AuthenticateDeps) {
  return async (ctx: Ctx, next: Koa.Next) => {
    // Before the key table is loaded every key would look unknown: 503, never a wrong 401.
    if (d.accepting && !d.accepting()) throw errors.unavailable(2)
    const t = d.now()
    const parsed = parseAuthorization(ctx.get('authorization') || undefined, d.acceptedKeyTypes)
    const found = parsed.ok ? d.keys.lookup(hashKey(parsed.key)) : undefined
    if (!found) {
      // Unauthenticated requests are throttled per client IP and carry that bucket's headers (H2).
      const ipb = ipBucket(ctx.state.ip)
      const ipr = d.shared ? await d.shared.checkRequest(ipb, d.ipRequestsPerMinute, t) : d.requestLimiter.check(ipb, d.ipRequestsPerMinute, t)
      ctx.state.rl = ipr
      if (!ipr.allowed) throw rateLimitError(ipr)
      throw parsed.ok ? errors.invalidKey() : parsed.error
    }
    const bucket = accountBucket(found.account.account_id)
    const limit = found.plan.requestsPerMinute
    const rl = d.shared ? await d.shared.checkRequest(bucket, limit, t) : d.requestLimiter.check(bucket, limit, t)
    ctx.state.rl = rl
    if (!rl.allowed) throw rateLimitError(rl)
    ctx.state.auth = found
    await next()
  }
}
