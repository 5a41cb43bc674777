// CSRF protection for state-changing requests (POST, PUT, PATCH, DELETE), two checks:
// 1. Origin: when the browser sends Origin (all current browsers do on POST), it must be the
//    dashboard's own origin or a configured one.
// 2. Signed double submit: a non-httpOnly cookie holds a random value signed with the server's
//    secret; the page copies it into the X-CSRF-Token header. Another site can neither read the
//    cookie nor forge a signed value, and the session cookie is SameSite=Strict besides.
// 3. Bound to the session: a token issued with a session carries its id, and a signed-in request
//    is refused unless its token names that session, so a token obtained from another session
//    (another account, or one planted by a sibling subdomain) is worthless.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { sign, unsign } from './tokens.js'

export const CSRF_HEADER = 'x-csrf-token'
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export const isStateChanging = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase())

/** A CSRF token; `sessionId` binds it to that session (none before sign-in). */
export const newCsrfToken = (secret: Buffer, sessionId?: string): string =>
  sign(secret, 'csrf', { n: randomBytes(16).toString('base64url'), ...(sessionId ? { s: sessionId } : {}) })

/** The session id a valid token is bound to: a string, null for an unbound token, undefined for an invalid one. */
export function csrfSessionOf(secret: Buffer, token: string | undefined): string | null | undefined {
  const p = unsign<{ n?: unknown; s?: unknown }>(secret, 'csrf', token)
  if (!p || typeof p.n !== 'string') return undefined
  return typeof p.s === 'string' ? p.s : null
}

export type CsrfVerdict = { ok: true } | { ok: false; reason: string }

export function checkCsrf(input: {
  secret: Buffer
  method: string
  origin?: string
  ownOrigin: string
  allowedOrigins?: ReadonlySet<string>
  cookie?: string
  header?: string
  /** The id of the request's valid session, if it has one. */
  sessionId?: string
}): CsrfVerdict {
  if (!isStateChanging(input.method)) return { ok: true }
  if (input.origin !== undefined && input.origin !== input.ownOrigin && !input.allowedOrigins?.has(input.origin)) {
    return { ok: false, reason: `cross-origin request from ${input.origin}` }
  }
  const { cookie, header } = input
  if (!cookie || !header) return { ok: false, reason: 'missing CSRF token' }
  const a = Buffer.from(cookie)
  const b = Buffer.from(header)
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'CSRF token does not match' }
  const bound = csrfSessionOf(input.secret, cookie)
  if (bound === undefined) return { ok: false, reason: 'CSRF token not issued by this server' }
  if (input.sessionId !== undefined && bound !== input.sessionId)
    return { ok: false, reason: 'CSRF token belongs to another session' }
  return { ok: true }
}
