// H2 steps 1 and 2: the bearer key (H1), then the account's per-minute window (H3; live and test keys
// apart, H32). Requests without a valid key are throttled per client address instead. A request then
// refused for its body is given back to the account's window and counted in its key and address's
// own budget, which, once spent, refuses that key and address before a body is read (H32).
import type Koa from 'koa'
import type { KeyTable } from '../../../shared/src/accounts/key-table.js'
import { hashKey } from '../../../shared/src/accounts/key-hash.js'
import { errors } from '../errors.js'
import { parseAuthorization } from '../auth/index.js'
import { accountBucket, ipBucket, rateLimitError, refusedBucket, type Limits } from '../limits/index.js'
import { refusedRequestsPerMinute } from '../../../shared/src/accounts/plans.js'
import type { Ctx } from './context.js'
import type { IngestConfig } from '../config.js'

export interface AuthenticateDeps {
  keys: KeyTable
  /** The per-minute counts: this instance's, or with REDIS_URL every instance's (one script call per request). */
  limits: Limits
  acceptedKeyTypes: ReadonlySet<'live' | 'test'>
  ipRequestsPerMinute: number
  now: () => number
  /** False until the key table is loaded (and while draining). */
  accepting?: () => boolean
  /** Where the key is read, as a Bearer header: the Authorization header by default; the Segment routes' own (segment/write-key.ts). */
  authorization?: (ctx: Ctx) => string | undefined
}

/** What the ingest app has (app.ts IngestDeps) for authenticate(): its clients and configuration. */
export type AppAuthDeps = Omit<AuthenticateDeps, 'acceptedKeyTypes' | 'ipRequestsPerMinute' | 'authorization'> & {
  cfg: Pick<IngestConfig, 'acceptedKeyTypes' | 'ipRequestsPerMinute'>
}

/** authenticate() with the app's clients, the configured key types and the per-address limit; the key
 *  read from the Authorization header unless `authorization` says where else. */
export function appAuthenticate(d: AppAuthDeps, authorization?: AuthenticateDeps['authorization']) {
  return authenticate({
    keys: d.keys,
    limits: d.limits,
    acceptedKeyTypes: d.cfg.acceptedKeyTypes,
    ipRequestsPerMinute: d.cfg.ipRequestsPerMinute,
    now: d.now,
    accepting: d.accepting,
    authorization,
  })
}

export function authenticate(d: AuthenticateDeps) {
  return async (ctx: Ctx, next: Koa.Next) => {
    // Before the key table is loaded every key would look unknown: 503, never a wrong 401.
    if (d.accepting && !d.accepting()) throw errors.unavailable(2)
    const t = d.now()
    const parsed = parseAuthorization(
      d.authorization ? d.authorization(ctx) : ctx.get('authorization') || undefined,
      d.acceptedKeyTypes,
    )
    const found = parsed.ok ? d.keys.lookup(hashKey(parsed.key)) : undefined
    if (!found) {
      // Unauthenticated requests are throttled per client IP and carry that bucket's headers (H2).
      const ipb = ipBucket(ctx.state.ip)
      const ipr = await d.limits.checkRequest(ipb, d.ipRequestsPerMinute, t)
      ctx.state.rl = ipr
      if (!ipr.allowed) throw rateLimitError(ipr)
      throw parsed.ok ? errors.invalidKey() : parsed.error
    }
    const bucket = accountBucket(found.account.account_id, found.key.type)
    const refused = refusedBucket(found.key.key_id, ctx.state.ip)
    const limit = found.plan.requestsPerMinute
    const refusedLimit = refusedRequestsPerMinute(found.plan)
    const rl = await d.limits.checkGuarded(bucket, limit, refused, refusedLimit, t)
    ctx.state.rl = rl
    if (!rl.allowed) throw rateLimitError(rl)
    ctx.state.auth = found
    try {
      await next()
    } catch (err) {
      if (REFUSED_FOR_BODY.has((err as { status?: number } | undefined)?.status ?? 0)) {
        await d.limits.refusedBody(bucket, refused, t)
        ctx.state.rl = { ...rl, remaining: Math.min(rl.limit, rl.remaining + 1) } // its headers say it was given back
      }
      throw err
    }
  }
}

/** Statuses of a request refused for its body (H7-H9, H11): what H32 keeps out of the account's window. */
const REFUSED_FOR_BODY = new Set([400, 413, 415])
