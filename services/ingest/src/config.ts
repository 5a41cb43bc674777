// The ingest service's configuration: read once at start from an env object, validated.
import { parseCorsOrigins, type CorsPolicy } from './http/cors.js'
import { readEnv, commonSpec, commonConfig, v, ConfigError, type CommonConfig } from '../../shared/src/env.js'
import { privacySpec, privacyConfig, type PrivacyConfig } from '../../shared/src/privacy/crypto/privacy-config.js'

const spec = {
  ...commonSpec,
  ...privacySpec,
  INGEST_HOST: v.str('127.0.0.1'),
  INGEST_PORT: v.int(8080, 0, 65535),
  /** The admin listener (readiness, metrics; H36): loopback by default, never the public address. */
  INGEST_ADMIN_HOST: v.str('127.0.0.1'),
  INGEST_ADMIN_PORT: v.int(8090, 0, 65535),
  INGEST_INSTANCE_ID: v.str(`ingest-${process.pid}`),
  ACCEPTED_KEY_TYPES: v.list(['live', 'test']),
  TRUSTED_PROXIES: v.list(['127.0.0.1', '::1', '::ffff:127.0.0.1']),
  IP_REQUESTS_PER_MINUTE: v.int(100, 1),
  PLANS_JSON: v.optionalStr(),
  PRODUCER_LINGER_MS: v.int(2, 0, 1000),
  PRODUCER_MAX_BATCH_RECORDS: v.int(5000, 1, 100_000),
  /** Bytes per group-commit flush; below the broker's default 1 MB record batch limit. */
  PRODUCER_MAX_BATCH_BYTES: v.int(900_000, 1_000, 64 * 1024 * 1024),
  /** Producers (transactional ids) whose flushes may be in flight at once; 1 measured best on 2 cores (bench/HISTORY.md). */
  PRODUCER_POOL_SIZE: v.int(1, 1, 32),
  /** Idempotent producers of the plain lane (single-partition requests), one flush each at a time. */
  PRODUCER_PLAIN_POOL_SIZE: v.int(4, 1, 32),
  /** A request not acknowledged by Kafka within this time gets 503 (its producer is then replaced). */
  PRODUCER_FLUSH_TIMEOUT_MS: v.int(10_000, 100, 120_000),
  /** Records waiting for a producer beyond which requests are shed with 503 (bounded memory). */
  PRODUCER_MAX_QUEUED_RECORDS: v.int(50_000, 1, 10_000_000),
  KAFKA_TRANSACTIONS: v.bool(true),
  USAGE_REFRESH_MS: v.int(5000, 100),
  /** With REDIS_URL: how often the shared monthly counters are reconciled from ClickHouse. Requests never
   *  wait for that read, but it grows with the month's events, so it runs far less often than the
   *  in-memory refresh, which is how one instance sees the others' events without Redis. */
  USAGE_RECONCILE_MS: v.int(60_000, 100),
  /** H34: how long a counted message id is not counted again, and how far back counts are taken as
   *  still on their way to ClickHouse when reconciliation lowers a monthly count. */
  USAGE_IN_FLIGHT_MS: v.int(600_000, 1000, 7 * 24 * 3600_000),
  /** Shared limiter state of several instances (docs/scaling.md); empty: each instance limits from its own memory. */
  REDIS_URL: v.optionalStr(),
  /** A Redis limiter call slower than this is answered by the local limiter instead. */
  REDIS_TIMEOUT_MS: v.int(1000, 5, 10_000),
  /** While Redis is away, how often one call probes it again. */
  REDIS_RETRY_MS: v.int(1000, 10, 600_000),
  /** Prefix of every limiter key, so several deployments (or tests) can share one Redis. */
  REDIS_KEY_PREFIX: v.str('tracking:'),
  CORS_ORIGINS: v.str('*'),
  SINGLE_BODY_LIMIT_BYTES: v.int(1_000_000, 1),
  BATCH_BODY_LIMIT_BYTES: v.int(10_000_000, 1),
  /** H24: a body must have arrived within this time of being read (408 beyond). */
  BODY_READ_TIMEOUT_MS: v.int(30_000, 100, 600_000),
  /** H24: a compressed body may inflate at most this many times its size (past 64 KiB; 413 beyond). */
  BODY_MAX_INFLATE_RATIO: v.int(100, 1, 100_000),
  /** H24: body bytes (after decompression) one account's requests may hold while being read (429 beyond). */
  BODY_IN_FLIGHT_ACCOUNT_BYTES: v.int(20_000_000, 1),
  /** H24: body bytes all requests of this instance may hold while being read (503 beyond). */
  BODY_IN_FLIGHT_INSTANCE_BYTES: v.int(200_000_000, 1),
  /** H24: a request's headers must have arrived within this time (Node answers 408 and closes). */
  INGEST_HEADERS_TIMEOUT_MS: v.int(10_000, 100, 600_000),
  /** H24: open connections beyond which new ones are closed at once. */
  INGEST_MAX_CONNECTIONS: v.int(5_000, 1, 1_000_000),
  /** H66: how often refused requests counted per account are appended to TOPIC_REFUSALS. */
  REFUSALS_FLUSH_MS: v.int(5_000, 100, 600_000),
}

export interface IngestConfig extends CommonConfig {
  host: string
  port: number
  /** Where /health/ready, /health and /metrics are served (H36). */
  admin: { host: string; port: number }
  instanceId: string
  acceptedKeyTypes: ReadonlySet<'live' | 'test'>
  trustedProxies: ReadonlySet<string>
  ipRequestsPerMinute: number
  plansJson: string
  producer: {
    lingerMs: number
    maxBatchRecords: number
    maxBatchBytes: number
    transactional: boolean
    poolSize: number
    plainPoolSize: number
    flushTimeoutMs: number
    maxQueuedRecords: number
  }
  usageRefreshMs: number
  usageReconcileMs: number
  usageInFlightMs: number
  /** Set when REDIS_URL is: limits shared across instances. */
  redis?: { url: string; timeoutMs: number; retryMs: number; keyPrefix: string }
  corsOrigins: CorsPolicy
  bodyLimits: { single: number; batch: number }
  /** H24: how bodies are read (http/body-reader.ts) and how many bytes may be in flight. */
  body: { readTimeoutMs: number; maxInflateRatio: number; inFlight: { perAccount: number; perInstance: number } }
  /** H24: the HTTP server's own bounds (main.ts). */
  server: { headersTimeoutMs: number; maxConnections: number }
  /** H66: the refusal aggregator's drain interval. */
  refusalsFlushMs: number
  /** A15: crypto-shredding of the personal fields. */
  privacy: PrivacyConfig
}

export function loadIngestConfig(env: Record<string, string | undefined>): IngestConfig {
  const e = readEnv(spec, env)
  const types = e.ACCEPTED_KEY_TYPES as string[]
  for (const t of types)
    if (t !== 'live' && t !== 'test')
      throw new ConfigError('ACCEPTED_KEY_TYPES', `unknown key type ${t}; use live, test or both`)
  return {
    ...commonConfig(e),
    host: e.INGEST_HOST,
    port: e.INGEST_PORT,
    admin: adminListener(e),
    instanceId: e.INGEST_INSTANCE_ID,
    acceptedKeyTypes: new Set(types as Array<'live' | 'test'>),
    trustedProxies: new Set(e.TRUSTED_PROXIES),
    ipRequestsPerMinute: e.IP_REQUESTS_PER_MINUTE,
    plansJson: e.PLANS_JSON,
    producer: {
      lingerMs: e.PRODUCER_LINGER_MS,
      maxBatchRecords: e.PRODUCER_MAX_BATCH_RECORDS,
      maxBatchBytes: e.PRODUCER_MAX_BATCH_BYTES,
      transactional: e.KAFKA_TRANSACTIONS,
      poolSize: e.PRODUCER_POOL_SIZE,
      plainPoolSize: e.PRODUCER_PLAIN_POOL_SIZE,
      flushTimeoutMs: e.PRODUCER_FLUSH_TIMEOUT_MS,
      maxQueuedRecords: e.PRODUCER_MAX_QUEUED_RECORDS,
    },
    usageRefreshMs: e.USAGE_REFRESH_MS,
    usageReconcileMs: e.USAGE_RECONCILE_MS,
    usageInFlightMs: e.USAGE_IN_FLIGHT_MS,
    ...redisConfig(e),
    corsOrigins: parseCorsOrigins(e.CORS_ORIGINS),
    bodyLimits: { single: e.SINGLE_BODY_LIMIT_BYTES, batch: e.BATCH_BODY_LIMIT_BYTES },
    ...bodyConfig(e),
    refusalsFlushMs: e.REFUSALS_FLUSH_MS,
    privacy: privacyConfig(e),
  }
}

function bodyConfig(e: Record<string, any>): Pick<IngestConfig, 'body' | 'server'> {
  const largest = Math.max(e.SINGLE_BODY_LIMIT_BYTES, e.BATCH_BODY_LIMIT_BYTES)
  // A budget below one body at the limit would refuse every such body, however idle the instance.
  if (e.BODY_IN_FLIGHT_ACCOUNT_BYTES < largest)
    throw new ConfigError('BODY_IN_FLIGHT_ACCOUNT_BYTES', `must be at least the largest body limit (${largest})`)
  if (e.BODY_IN_FLIGHT_INSTANCE_BYTES < e.BODY_IN_FLIGHT_ACCOUNT_BYTES)
    throw new ConfigError(
      'BODY_IN_FLIGHT_INSTANCE_BYTES',
      `must be at least BODY_IN_FLIGHT_ACCOUNT_BYTES (${e.BODY_IN_FLIGHT_ACCOUNT_BYTES})`,
    )
  return {
    body: {
      readTimeoutMs: e.BODY_READ_TIMEOUT_MS,
      maxInflateRatio: e.BODY_MAX_INFLATE_RATIO,
      inFlight: { perAccount: e.BODY_IN_FLIGHT_ACCOUNT_BYTES, perInstance: e.BODY_IN_FLIGHT_INSTANCE_BYTES },
    },
    server: { headersTimeoutMs: e.INGEST_HEADERS_TIMEOUT_MS, maxConnections: e.INGEST_MAX_CONNECTIONS },
  }
}

// One port cannot be both listeners: the second listen would fail at start with EADDRINUSE, later
// and less clearly than here. Port 0 (tests) picks a free port for each.
function adminListener(e: Record<string, any>): IngestConfig['admin'] {
  if (e.INGEST_ADMIN_PORT !== 0 && e.INGEST_ADMIN_PORT === e.INGEST_PORT) {
    throw new ConfigError(
      'INGEST_ADMIN_PORT',
      `must differ from INGEST_PORT (${e.INGEST_PORT}): metrics and readiness stay off the public port`,
    )
  }
  return { host: e.INGEST_ADMIN_HOST, port: e.INGEST_ADMIN_PORT }
}

function redisConfig(e: Record<string, any>): Pick<IngestConfig, 'redis'> {
  const url = (e.REDIS_URL as string).trim()
  if (!url) return {}
  if (!/^rediss?:\/\/[^\s]+$/.test(url))
    throw new ConfigError(
      'REDIS_URL',
      'must be a redis:// or rediss:// URL (the value is not shown: it may hold a password)',
    )
  return { redis: { url, timeoutMs: e.REDIS_TIMEOUT_MS, retryMs: e.REDIS_RETRY_MS, keyPrefix: e.REDIS_KEY_PREFIX } }
}
