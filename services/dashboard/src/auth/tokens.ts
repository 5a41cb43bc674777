// Signed tokens for the session cookie and the CSRF token: base64url(JSON payload) "." HMAC-SHA256.
// The session is stateless; it is bound to a fingerprint of the account's password hash, so a
// password change ends every session of that account.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

export interface SessionPayload {
  /** Account id. */
  a: string
  /** Fingerprint of the password hash at sign-in. */
  pv: string
  /** Issued and expiry times, epoch ms. */
  iat: number
  exp: number
  /** Random session id; the CSRF token is bound to it. */
  sid: string
}

const mac = (secret: Buffer, purpose: string, data: string) => createHmac('sha256', secret).update(purpose).update('\0').update(data).digest('base64url')

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export function sign(secret: Buffer, purpose: string, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${mac(secret, purpose, body)}`
}

/** The payload if the signature is valid for `purpose`, else undefined. */
export function unsign<T>(secret: Buffer, purpose: string, token: string | undefined): T | undefined {
  if (!token || token.length > 4096) return undefined
  const dot = token.lastIndexOf('.')
  if (dot <= 0) return undefined
  const body = token.slice(0, dot)
  if (!safeEqual(token.slice(dot + 1), mac(secret, purpose, body))) return undefined
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T
  } catch {
    return undefined
  }
}

export const passwordFingerprint = (passwordHash: string | null | undefined): string =>
  createHash('sha256').update(passwordHash ?? '').digest('base64url').slice(0, 16)

export function newSession(accountId: string, passwordHash: string | null | undefined, ttlMs: number, now = Date.now()): SessionPayload {
  return { a: accountId, pv: passwordFingerprint(passwordHash), iat: now, exp: now + ttlMs, sid: randomBytes(12).toString('base64url') }
}

export function readSession(secret: Buffer, token: string | undefined, now = Date.now()): SessionPayload | undefined {
  const s = unsign<SessionPayload>(secret, 'session', token)
  if (!s || typeof s.a !== 'string' || typeof s.exp !== 'number' || typeof s.sid !== 'string' || typeof s.pv !== 'string') return undefined
  return s.exp > now ? s : undefined
}

export const sessionToken = (secret: Buffer, s: SessionPayload): string => sign(secret, 'session', s)
