// The dashboard's configuration: read once at start from an env object, validated (STYLE.md).
import { randomBytes } from 'node:crypto'
import { cookieNamesFor, type CookieNames } from './auth/cookies.js'
import {
  readEnv,
  commonSpec,
  commonConfig,
  v,
  ConfigError,
  checkLiveToken,
  requireSecret,
  type CommonConfig,
} from '../../shared/src/env.js'
import { privacySpec, privacyConfig, type PrivacyConfig } from '../../shared/src/privacy/crypto/privacy-config.js'

const spec = {
  ...commonSpec,
  /** A22: erasure requests with PRIVACY_ENCRYPT on name the person by pseudonym (the master key's). */
  ...privacySpec,
  DASHBOARD_HOST: v.str('127.0.0.1'),
  DASHBOARD_PORT: v.int(8082, 0, 65535),
  PROJECTOR_URL: v.url('http://127.0.0.1:8081'),
  INGEST_URL: v.url('http://127.0.0.1:8080'),
  /** Shared secret the projector accepts for any account's live feed (it must equal the projector's). */
  LIVE_TOKEN: v.optionalStr(),
  /** HMAC key for session and CSRF tokens; at least 32 characters. Empty: a random one per process (sessions end on restart). */
  SESSION_SECRET: v.optionalStr(),
  SESSION_TTL_HOURS: v.int(168, 1, 24 * 90),
  /** Secure flag on cookies: true, false, or unset = on when the dashboard is served over https
   * (DASHBOARD_PUBLIC_URL or an allowed origin is https). */
  COOKIE_SECURE: v.optionalStr(),
  /** The URL users open the dashboard at (behind a proxy); decides COOKIE_SECURE's default. */
  DASHBOARD_PUBLIC_URL: v.optionalStr(),
  /** Failed sign-ins allowed per email and client IP in LOGIN_WINDOW_MINUTES before sign-in is refused with 429. */
  LOGIN_MAX_FAILURES: v.int(5, 1, 1000),
  LOGIN_WINDOW_MINUTES: v.int(15, 1, 24 * 60),
  /** Sign-ups allowed per client address in SIGNUP_WINDOW_MINUTES (each runs scrypt and creates an account). */
  SIGNUP_MAX_PER_IP: v.int(10, 1, 100_000),
  SIGNUP_WINDOW_MINUTES: v.int(60, 1, 24 * 60),
  /** Peers whose X-Forwarded-For is believed for the client address (H14, as for ingest). */
  TRUSTED_PROXIES: v.list(['127.0.0.1', '::1', '::ffff:127.0.0.1']),
  /** Extra origins allowed on state-changing requests besides the request's own (comma-separated). */
  DASHBOARD_ALLOWED_ORIGINS: v.optionalStr(),
  /** Plan overrides, same format as the ingest's PLANS_JSON, so both show the same limits. */
  PLANS_JSON: v.optionalStr(),
  /** Live streams one session may hold open at once (U3; the projector caps accounts and the total). */
  LIVE_MAX_STREAMS_PER_SESSION: v.int(5, 1, 1000),
  /** Keys an account may hold, revoked ones excluded (U5). */
  KEYS_MAX_PER_ACCOUNT: v.int(50, 1, 100_000),
  /** Key changes (create, deactivate, reactivate, revoke) per account per minute (U5). */
  KEY_CHANGES_PER_MINUTE: v.int(20, 1, 100_000),
  /** Reads of event data (usage, events, top events, users, keys' last use) per session per minute; 3x per account (H23). */
  QUERIES_PER_MINUTE: v.int(60, 1, 100_000),
  /** The read-only ClickHouse user the dashboard reads event data as (H23); empty: CLICKHOUSE_USER. */
  CLICKHOUSE_READ_USER: v.optionalStr(),
  CLICKHOUSE_READ_PASSWORD: v.optionalStr(),
}

export interface DashboardConfig extends CommonConfig {
  privacy: PrivacyConfig
  host: string
  port: number
  projectorUrl: string
  ingestUrl: string
  liveToken: string
  sessionSecret: Buffer
  sessionSecretGenerated: boolean
  sessionTtlMs: number
  cookieSecure: boolean
  /** `__Host-` names when secure (auth/cookies.ts). */
  cookies: CookieNames
  login: { maxFailures: number; windowMs: number }
  signup: { maxPerIp: number; windowMs: number }
  trustedProxies: ReadonlySet<string>
  allowedOrigins: ReadonlySet<string>
  plansJson: string
  liveStreamsPerSession: number
  keys: { maxPerAccount: number; changesPerMinute: number }
  queriesPerMinute: number
  /** Where event data is read from: the read-only user when CLICKHOUSE_READ_USER is set, else the common one. */
  clickhouseRead: { url: string; username: string; password: string; database: string; readOnlyUser: boolean }
}

export function loadDashboardConfig(env: Record<string, string | undefined>): DashboardConfig {
  const e = readEnv(spec, env)
  const secret = e.SESSION_SECRET as string
  checkLiveToken(e.LIVE_TOKEN)
  if (e.REQUIRE_SECRETS) {
    requireSecret(e, 'LIVE_TOKEN')
    requireSecret(e, 'SESSION_SECRET')
    if (e.CLICKHOUSE_READ_USER) requireSecret(e, 'CLICKHOUSE_READ_PASSWORD')
  }
  if (secret && secret.length < 32) throw new ConfigError('SESSION_SECRET', 'must be at least 32 characters')
  const origins = (e.DASHBOARD_ALLOWED_ORIGINS as string)
    .split(',')
    .map((s) => s.trim().replace(/\/$/, ''))
    .filter(Boolean)
  for (const o of origins)
    if (!/^https?:\/\/[^/\s]+$/.test(o)) throw new ConfigError('DASHBOARD_ALLOWED_ORIGINS', `not an origin: ${o}`)
  const publicUrl = e.DASHBOARD_PUBLIC_URL as string
  if (publicUrl && !/^https?:\/\/[^\s]+$/.test(publicUrl))
    throw new ConfigError('DASHBOARD_PUBLIC_URL', `not a URL: ${publicUrl}`)
  const cookieSecure = cookieSecureOf(e.COOKIE_SECURE, publicUrl, origins)
  return {
    ...commonConfig(e),
    privacy: privacyConfig(e),
    host: e.DASHBOARD_HOST,
    port: e.DASHBOARD_PORT,
    projectorUrl: (e.PROJECTOR_URL as string).replace(/\/$/, ''),
    ingestUrl: (e.INGEST_URL as string).replace(/\/$/, ''),
    liveToken: e.LIVE_TOKEN,
    sessionSecret: secret ? Buffer.from(secret) : randomBytes(32),
    sessionSecretGenerated: !secret,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3_600_000,
    cookieSecure,
    cookies: cookieNamesFor(cookieSecure),
    login: { maxFailures: e.LOGIN_MAX_FAILURES, windowMs: e.LOGIN_WINDOW_MINUTES * 60_000 },
    signup: { maxPerIp: e.SIGNUP_MAX_PER_IP, windowMs: e.SIGNUP_WINDOW_MINUTES * 60_000 },
    trustedProxies: new Set(e.TRUSTED_PROXIES),
    allowedOrigins: new Set(origins),
    plansJson: e.PLANS_JSON,
    liveStreamsPerSession: e.LIVE_MAX_STREAMS_PER_SESSION,
    keys: { maxPerAccount: e.KEYS_MAX_PER_ACCOUNT, changesPerMinute: e.KEY_CHANGES_PER_MINUTE },
    queriesPerMinute: e.QUERIES_PER_MINUTE,
    clickhouseRead: clickhouseReadOf(commonConfig(e).clickhouse, e.CLICKHOUSE_READ_USER, e.CLICKHOUSE_READ_PASSWORD),
  }
}

/** COOKIE_SECURE as given, or by default on whenever the dashboard is served over https: a session
 * cookie without Secure would also be sent over plain http to the same host. */
export function cookieSecureOf(raw: string, publicUrl: string, allowedOrigins: string[]): boolean {
  const v = raw.trim().toLowerCase()
  if (/^(1|true|yes|on)$/.test(v)) return true
  if (/^(0|false|no|off)$/.test(v)) return false
  if (v !== '')
    throw new ConfigError('COOKIE_SECURE', `invalid value ${JSON.stringify(raw)} (true, false, or unset for automatic)`)
  return [publicUrl, ...allowedOrigins].some((u) => u.toLowerCase().startsWith('https://'))
}

/** The read-only user (H23) when one is named; without one, the dashboard reads as CLICKHOUSE_USER
 * and says so at start. A read password without a user is a mistake, not a fallback. */
export function clickhouseReadOf(
  common: CommonConfig['clickhouse'],
  user: string,
  password: string,
): DashboardConfig['clickhouseRead'] {
  if (!user && password) throw new ConfigError('CLICKHOUSE_READ_PASSWORD', 'is set but CLICKHOUSE_READ_USER is not')
  return user ? { ...common, username: user, password, readOnlyUser: true } : { ...common, readOnlyUser: false }
}
