// Configuration is read once at start from an env object passed in (never process.env deep in a
// module), validated with TypeBox, and a bad value stops the process with the variable's name.
import { Type, type TSchema, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID'
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`)
  }
}

type Env = Record<string, string | undefined>

interface VarSpec<S extends TSchema> {
  schema: S
  default?: Static<S>
  parse?: (raw: string) => unknown
}

export const v = {
  str: (def?: string, pattern?: string): VarSpec<any> => ({ schema: Type.String({ minLength: 1, pattern }), default: def }),
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
    parse: (raw) => raw.split(',').map((s) => s.trim()).filter(Boolean),
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
export type ConfigOf<S extends Spec> = { [K in keyof S]: S[K]['default'] extends infer D ? (D extends undefined ? string : D) : never }

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
      throw new ConfigError(name, `invalid value ${JSON.stringify(raw)}${first ? ` (${first.message})` : ''}`)
    }
    out[name] = value
  }
  return out as any
}

/** Variables both services share: where Kafka, the registry and ClickHouse are, and topic names. */
export const commonSpec = {
  KAFKA_BROKERS: v.list(['127.0.0.1:19092']),
  KAFKA_CLIENT_ID: v.str('tracking'),
  SCHEMA_REGISTRY_URL: v.url('http://127.0.0.1:18081/apis/ccompat/v7'),
  CLICKHOUSE_URL: v.url('http://127.0.0.1:18123'),
  CLICKHOUSE_USER: v.str('default'),
  CLICKHOUSE_PASSWORD: v.optionalStr(),
  CLICKHOUSE_DATABASE: v.str('tracking', '^[A-Za-z_][A-Za-z0-9_]*$'),
  TOPIC_EVENTS: v.str('tracking.events.v1'),
  TOPIC_IDENTIFIES: v.str('tracking.identifies.v1'),
  TOPIC_ACCOUNTS: v.str('tracking.accounts.v1'),
  TOPIC_DLQ: v.str('tracking.dlq.v1'),
  TOPIC_PARTITIONS: v.int(6, 1, 1024),
  /** Replicas of each topic created by the services: 1 for the single local broker; production uses 3. */
  TOPIC_REPLICATION_FACTOR: v.int(1, 1, 16),
  /** With acks=all, how many replicas must have a record before it is acknowledged; production uses 2. */
  TOPIC_MIN_INSYNC_REPLICAS: v.int(1, 1, 16),
  LOG_LEVEL: v.oneOf(['debug', 'info', 'warn', 'error'] as const, 'info'),
}

export interface CommonConfig {
  kafka: { brokers: string[]; clientId: string }
  registryUrl: string
  clickhouse: { url: string; username: string; password: string; database: string }
  topics: { events: string; identifies: string; accounts: string; dlq: string }
  topicPartitions: number
  topicReplication: { factor: number; minInsync: number }
  logLevel: 'debug' | 'info' | 'warn' | 'error'
}

export function commonConfig(e: Record<string, any>): CommonConfig {
  const topics = { events: e.TOPIC_EVENTS, identifies: e.TOPIC_IDENTIFIES, accounts: e.TOPIC_ACCOUNTS, dlq: e.TOPIC_DLQ }
  if (e.TOPIC_MIN_INSYNC_REPLICAS > e.TOPIC_REPLICATION_FACTOR) {
    throw new ConfigError('TOPIC_MIN_INSYNC_REPLICAS', `must not exceed TOPIC_REPLICATION_FACTOR (${e.TOPIC_REPLICATION_FACTOR}): no write could ever be acknowledged`)
  }
  const names = Object.values(topics)
  if (new Set(names).size !== names.length) throw new ConfigError('TOPIC_*', 'topic names must differ')
  return {
    kafka: { brokers: e.KAFKA_BROKERS, clientId: e.KAFKA_CLIENT_ID },
    registryUrl: e.SCHEMA_REGISTRY_URL,
    clickhouse: { url: e.CLICKHOUSE_URL, username: e.CLICKHOUSE_USER, password: e.CLICKHOUSE_PASSWORD, database: e.CLICKHOUSE_DATABASE },
    topics,
    topicPartitions: e.TOPIC_PARTITIONS,
    topicReplication: { factor: e.TOPIC_REPLICATION_FACTOR, minInsync: e.TOPIC_MIN_INSYNC_REPLICAS },
    logLevel: e.LOG_LEVEL,
  }
}
