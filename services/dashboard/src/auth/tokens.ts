// Signed tokens for the session cookie and the CSRF token: base64url(JSON payload) "." HMAC-SHA256.
// The token itself is stateless; revocation is server-side, on the account record (accounts topic):
// a session is refused when the account's session_version moved on (sign out everywhere, password
// change), when its id is in revoked_sessions (sign-out), or when the password hash changed.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { AccountRecord } from '../../../../schemas/records.js'

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
  /** The account's session_version at sign-in. */
  sv: number
}

const mac = (secret: Buffer, purpose: string, data: string) =>
  createHmac('sha256', secret).update(purpose).update('\0').update(data).digest('base64url')

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
  createHash('sha256')
    .update(passwordHash ?? '')
    .digest('base64url')
    .slice(0, 16)

type SessionAccount = Pick<AccountRecord, 'account_id' | 'password_hash' | 'session_version'>

export function newSession(a: SessionAccount, ttlMs: number, now = Date.now()): SessionPayload {
  return {
    a: a.account_id,
    pv: passwordFingerprint(a.password_hash),
    iat: now,
    exp: now + ttlMs,
    sid: randomBytes(12).toString('base64url'),
    sv: a.session_version ?? 0,
  }
}

/** The payload of a well-formed, correctly signed, unexpired session token; not yet checked against the account. */
export function readSession(secret: Buffer, token: string | undefined, now = Date.now()): SessionPayload | undefined {
  const s = unsign<SessionPayload>(secret, 'session', token)
  if (
    !s ||
    typeof s.a !== 'string' ||
    typeof s.exp !== 'number' ||
    typeof s.sid !== 'string' ||
    typeof s.pv !== 'string'
  )
    return undefined
  // Tokens issued before session versions existed carry none: version 0, ended by the first bump.
  if (s.sv === undefined) s.sv = 0
  if (typeof s.sv !== 'number') return undefined
  return s.exp > now ? s : undefined
}

/** Whether the account (as the accounts topic has it now) still accepts this session. */
export function sessionAllowed(s: SessionPayload, a: AccountRecord | undefined): a is AccountRecord {
  return (
    a !== undefined &&
    a.account_id === s.a &&
    a.status === 'active' &&
    passwordFingerprint(a.password_hash) === s.pv &&
    (a.session_version ?? 0) === s.sv &&
    !(a.revoked_sessions ?? []).some((r) => r.sid === s.sid)
  )
}

export const sessionToken = (secret: Buffer, s: SessionPayload): string => sign(secret, 'session', s)
