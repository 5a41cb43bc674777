// Configuration is read once at start from an env object passed in (never process.env deep in a
// module), validated with TypeBox, and a bad value stops the process with the variable's name.
import { Type, type TSchema, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { AppError } from './errors.js'
import type { Topics } from '../../../schemas/topics.js'

export class ConfigError extends AppError {
  readonly code = 'CONFIG_INVALID'
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`, { retriable: false })
  }
}

type Env = Record<string, string | undefined>

interface VarSpec<S extends TSchema> {
  schema: S
  default?: Static<S>
  parse?: (raw: string) => unknown
}

export const v = {
  str: (def?: string, pattern?: string): VarSpec<any> => ({
    schema: Type.String({ minLength: 1, pattern }),
    default: def,
  }),
  optionalStr: (): VarSpec<any> => ({ schema: Type.String(), default: '' }),
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER): VarSpec<any> => ({
    schema: Type.Integer({ minimum: min, maximum: max }),
    default: def,
    parse: (raw) => (/^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw),
  }),
  url: (def: string): VarSpec<any> => ({ schema: Type.String({ pattern: '^https?://[^\\s]+$' }), default: def }),
  list: (def: string[]): VarSpec<any> => ({
    schema: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    default: def,
    parse: (raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
  }),
  bool: (def: boolean): VarSpec<any> => ({
    schema: Type.Boolean(),
    default: def,
    parse: (raw) => (/^(1|true|yes|on)$/i.test(raw) ? true : /^(0|false|no|off)$/i.test(raw) ? false : raw),
  }),
  oneOf: <T extends string>(values: readonly T[], def: T): VarSpec<any> => ({
    schema: Type.Union(values.map((x) => Type.Literal(x))),
    default: def,
  }),
}

export type Spec = Record<string, VarSpec<any>>

// Start-up errors reach logs that more people read than hold the secrets: a variable that may carry a
// credential (a password, token, secret or key, or any URL, which may hold user:password@) is named and its
// value never echoed. One rule for every service, by name, so a new variable is covered without a flag.
const SECRET_NAME = /(PASSWORD|SECRET|TOKEN|_KEY|_URL|_URLS|CREDENTIALS?)$/

/** Whether a variable's value may hold a credential and must not appear in messages or logs. */
export function mayHoldSecret(variable: string): boolean {
  return SECRET_NAME.test(variable)
}

/** A URL as it may be shown: without its user and password (an unparsable one is not shown at all). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (!u.username && !u.password) return url
    u.username = '***'
    u.password = ''
    return u.toString()
  } catch {
    return '(a URL that does not parse)'
  }
}

/** Reads each variable of `spec` from `env`, applying defaults; throws ConfigError naming the first bad one. */
export function readEnv<S extends Spec>(spec: S, env: Env): { [K in keyof S]: any } {
  const out: Record<string, unknown> = {}
  for (const [name, s] of Object.entries(spec)) {
    const raw = env[name]
    let value: unknown
    if (raw === undefined || raw === '') {
      if (s.default === undefined) throw new ConfigError(name, 'is required')
      value = s.default
    } else {
      value = s.parse ? s.parse(raw) : raw
    }
    if (!Value.Check(s.schema, value)) {
      const first = [...Value.Errors(s.schema, value)][0]
      const shown = mayHoldSecret(name)
        ? 'invalid value (not shown: it may hold a credential)'
        : `invalid value ${JSON.stringify(raw)}`
      throw new ConfigError(name, `${shown}${first ? ` (${first.message})` : ''}`)
    }
    out[name] = value
  }
  return out as any
}

/** Variables both services share: where Kafka, the registry and ClickHouse are, and topic names. */
export const commonSpec = {
  KAFKA_BROKERS: v.list(['127.0.0.1:19092']),
  KAFKA_CLIENT_ID: v.str('tracking'),
  /** TLS to the brokers (system CAs). */
  KAFKA_SSL: v.bool(false),
  /** SASL to the brokers: none, plain, scram-sha-256 or scram-sha-512; the last three need the username and password. */
  KAFKA_SASL_MECHANISM: v.oneOf(['none', 'plain', 'scram-sha-256', 'scram-sha-512'] as const, 'none'),
  KAFKA_SASL_USERNAME: v.optionalStr(),
  KAFKA_SASL_PASSWORD: v.optionalStr(),
  SCHEMA_REGISTRY_URL: v.url('http://127.0.0.1:18081/apis/ccompat/v7'),
  /** HTTP basic auth for the registry, when it asks for it. */
  SCHEMA_REGISTRY_USERNAME: v.optionalStr(),
  SCHEMA_REGISTRY_PASSWORD: v.optionalStr(),
  CLICKHOUSE_URL: v.url('http://127.0.0.1:18123'),
  CLICKHOUSE_USER: v.str('default'),
  CLICKHOUSE_PASSWORD: v.optionalStr(),
  CLICKHOUSE_DATABASE: v.str('tracking', '^[A-Za-z_][A-Za-z0-9_]*$'),
  /** A cluster of the ClickHouse servers' <remote_servers> (docs/design.md H44, H45); empty: one server. */
  CLICKHOUSE_CLUSTER: { schema: Type.String({ pattern: '^([A-Za-z_][A-Za-z0-9_]*)?$' }), default: '' },
  TOPIC_EVENTS: v.str('tracking.events.v1'),
  TOPIC_IDENTIFIES: v.str('tracking.identifies.v1'),
  TOPIC_ACCOUNTS: v.str('tracking.accounts.v1'),
  TOPIC_DLQ: v.str('tracking.dlq.v1'),
  /** Compacted: erasure requests and their receipts (A12, docs/privacy.md). */
  TOPIC_ERASURES: v.str('tracking.erasures.v1'),
  /** Refused requests per account, 7 days (H66). */
  TOPIC_REFUSALS: v.str('tracking.refusals.v1'),
  /** Compacted: the wrapped data keys of crypto-shredding (A13, A15); a tombstone erases a key. */
  TOPIC_KEYS: v.str('tracking.keys.v1'),
  /** A15: the keys topic's max.compaction.lag.ms and delete.retention.ms; their sum bounds how long an
   *  erased key survives on the broker's disks (the receipt's disk_gone_at). Applied when the topic is created. */
  KEYS_MAX_COMPACTION_LAG_MS: v.int(23 * 3600_000, 1000),
  KEYS_DELETE_RETENTION_MS: v.int(3600_000, 0),
  TOPIC_PARTITIONS: v.int(6, 1, 1024),
  /** Replicas of each topic created by the services: 1 for the single local broker; production uses 3. */
  TOPIC_REPLICATION_FACTOR: v.int(1, 1, 16),
  /** With acks=all, how many replicas must have a record before it is acknowledged; production uses 2. */
  TOPIC_MIN_INSYNC_REPLICAS: v.int(1, 1, 16),
  LOG_LEVEL: v.oneOf(['debug', 'info', 'warn', 'error'] as const, 'info'),
  /** On: every credential this service uses must be set (ClickHouse password, Kafka SASL, LIVE_TOKEN, SESSION_SECRET), else it refuses to start. */
  REQUIRE_SECRETS: v.bool(false),
  /** On: the projector keeps event_counts_hourly and the dashboard reads it (docs/design.md U19, U25). */
  HOURLY_COUNTS: v.bool(true),
}

export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512'

export interface CommonConfig {
  kafka: {
    brokers: string[]
    clientId: string
    ssl?: boolean
    sasl?: { mechanism: SaslMechanism; username: string; password: string }
  }
  registryUrl: string
  registryAuth?: { username: string; password: string }
  requireSecrets: boolean
  clickhouse: { url: string; username: string; password: string; database: string; cluster?: string }
  topics: Topics
  /** A15: how the keys topic forgets a tombstoned key (see KEYS_MAX_COMPACTION_LAG_MS). */
  keysTopic: { maxCompactionLagMs: number; deleteRetentionMs: number }
  topicPartitions: number
  topicReplication: { factor: number; minInsync: number }
  logLevel: 'debug' | 'info' | 'warn' | 'error'
  /** U19/U25: the projector marks the hours it writes and recounts them once closed; Trends and Definitions read the counts. */
  hourlyCounts: boolean
}

export function commonConfig(e: Record<string, any>): CommonConfig {
  const topics = {
    events: e.TOPIC_EVENTS,
    identifies: e.TOPIC_IDENTIFIES,
    accounts: e.TOPIC_ACCOUNTS,
    dlq: e.TOPIC_DLQ,
    erasures: e.TOPIC_ERASURES,
    refusals: e.TOPIC_REFUSALS,
    keys: e.TOPIC_KEYS,
  }
  if (e.TOPIC_MIN_INSYNC_REPLICAS > e.TOPIC_REPLICATION_FACTOR) {
    throw new ConfigError(
      'TOPIC_MIN_INSYNC_REPLICAS',
      `must not exceed TOPIC_REPLICATION_FACTOR (${e.TOPIC_REPLICATION_FACTOR}): no write could ever be acknowledged`,
    )
  }
  const names = Object.values(topics)
  if (new Set(names).size !== names.length) throw new ConfigError('TOPIC_*', 'topic names must differ')
  if (e.REQUIRE_SECRETS) {
    requireSecret(e, 'CLICKHOUSE_PASSWORD')
    if (e.KAFKA_SASL_MECHANISM === 'none')
      throw new ConfigError('KAFKA_SASL_MECHANISM', 'must name a SASL mechanism when REQUIRE_SECRETS is on')
  }
  return {
    kafka: { brokers: e.KAFKA_BROKERS, clientId: e.KAFKA_CLIENT_ID, ssl: e.KAFKA_SSL, ...kafkaSasl(e) },
    registryUrl: e.SCHEMA_REGISTRY_URL,
    ...registryAuth(e),
    requireSecrets: e.REQUIRE_SECRETS,
    hourlyCounts: e.HOURLY_COUNTS,
    clickhouse: {
      url: e.CLICKHOUSE_URL,
      username: e.CLICKHOUSE_USER,
      password: e.CLICKHOUSE_PASSWORD,
      database: e.CLICKHOUSE_DATABASE,
      ...(e.CLICKHOUSE_CLUSTER ? { cluster: e.CLICKHOUSE_CLUSTER } : {}),
    },
    topics,
    keysTopic: { maxCompactionLagMs: e.KEYS_MAX_COMPACTION_LAG_MS, deleteRetentionMs: e.KEYS_DELETE_RETENTION_MS },
    topicPartitions: e.TOPIC_PARTITIONS,
    topicReplication: { factor: e.TOPIC_REPLICATION_FACTOR, minInsync: e.TOPIC_MIN_INSYNC_REPLICAS },
    logLevel: e.LOG_LEVEL,
  }
}

/** LIVE_TOKEN (projector and dashboard) reads every account's live events: refuse a guessable one. */
export function checkLiveToken(token: string): void {
  if (token && token.length < 24)
    throw new ConfigError('LIVE_TOKEN', 'must be at least 24 characters (or empty to turn the live feed off)')
}

/** With REQUIRE_SECRETS on, an empty secret stops start-up naming the variable. */
export function requireSecret(e: Record<string, any>, name: string): void {
  if (!e[name]) throw new ConfigError(name, 'is required when REQUIRE_SECRETS is on')
}

// A mechanism without credentials, or credentials without a mechanism, is a mistake to stop on:
// the broker would refuse us later with a less useful message, or we would connect unauthenticated.
function kafkaSasl(e: Record<string, any>): Pick<CommonConfig['kafka'], 'sasl'> {
  const mechanism = e.KAFKA_SASL_MECHANISM as SaslMechanism | 'none'
  if (mechanism === 'none') {
    for (const name of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD']) {
      if (e[name])
        throw new ConfigError(
          'KAFKA_SASL_MECHANISM',
          `must be set (plain, scram-sha-256 or scram-sha-512) when ${name} is`,
        )
    }
    return {}
  }
  if (!e.KAFKA_SASL_USERNAME)
    throw new ConfigError('KAFKA_SASL_USERNAME', `is required with KAFKA_SASL_MECHANISM=${mechanism}`)
  if (!e.KAFKA_SASL_PASSWORD)
    throw new ConfigError('KAFKA_SASL_PASSWORD', `is required with KAFKA_SASL_MECHANISM=${mechanism}`)
  return { sasl: { mechanism, username: e.KAFKA_SASL_USERNAME, password: e.KAFKA_SASL_PASSWORD } }
}

function registryAuth(e: Record<string, any>): Pick<CommonConfig, 'registryAuth'> {
  const user = e.SCHEMA_REGISTRY_USERNAME as string
  const password = e.SCHEMA_REGISTRY_PASSWORD as string
  if (!user && !password) return {}
  if (!user) throw new ConfigError('SCHEMA_REGISTRY_USERNAME', 'is required when SCHEMA_REGISTRY_PASSWORD is set')
  if (!password) throw new ConfigError('SCHEMA_REGISTRY_PASSWORD', 'is required when SCHEMA_REGISTRY_USERNAME is set')
  return { registryAuth: { username: user, password } }
}
