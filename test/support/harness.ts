// Integration-test harness: starts the real projector and ingest services in this process against
// the running local stack (npm run stack:up), with random topic names, a fresh ClickHouse database
// and a fresh consumer group per call, and removes them when the test ends.
import type { Topics } from '../../schemas/topics.js'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import type { ClickHouseClient } from '@clickhouse/client'
import type { Kafka } from '../../services/shared/src/kafka/client.js'
import { createLogger } from '../../services/shared/src/log.js'
import { openAdmin } from '../../scripts/admin-context.js'
import type { AccountsAdmin } from '../../services/shared/src/accounts/accounts-admin.js'
import { createKafka } from '../../services/shared/src/kafka.js'
import { createClickHouse } from '../../services/shared/src/clickhouse.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { createProjectorService } from '../../services/projector/src/main.js'
import { createIngestService } from '../../services/ingest/src/main.js'
import type { KeyType } from '../../schemas/records.js'

export interface Teardown {
  teardown(fn: () => unknown): void
}

export interface TestServices {
  suffix: string
  env: Record<string, string>
  ingestUrl: string
  /** Ingest's admin listener: /health/ready, /health and /metrics (H36). */
  ingestAdminUrl: string
  projectorUrl: string
  admin: AccountsAdmin
  ch: ClickHouseClient
  database: string
  topics: Topics
  kafka: Kafka
  ingest?: Awaited<ReturnType<typeof createIngestService>>
  projector?: Awaited<ReturnType<typeof createProjectorService>>
  /** Creates an account (if new) on `plan` and a key of `type`; returns the secret. */
  createKey(opts?: {
    account?: string
    type?: KeyType
    plan?: string
    name?: string
  }): Promise<{ key: string; keyId: string; accountId: string }>
  /** Polls ClickHouse until `query` returns at least `min` rows (default 1), or fails after `timeoutMs`. */
  waitForRows<T = Record<string, unknown>>(query: string, min?: number, timeoutMs?: number): Promise<T[]>
  query<T = Record<string, unknown>>(query: string): Promise<T[]>
  post(
    path: string,
    body: unknown,
    init?: { key?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>
}

export const LIVE_TOKEN = 'test-live-token-0123456789abcdef'

export interface HarnessOptions {
  /** Start the ingest service (default true). */
  ingest?: boolean
  /** Start the projector service (default true). */
  projector?: boolean
  /** Extra environment for both services (e.g. PLANS_JSON, ACCEPTED_KEY_TYPES). */
  env?: Record<string, string>
  /** Share topics/database with another harness (several ingest instances on one log). */
  suffix?: string
}

/** The environment of services on their own topics, database and consumer group (`suffix`), on the
 * running stack; `over` wins. Services started by a test (in-process or as child processes) use it. */
export function isolatedEnv(suffix: string, over: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    TOPIC_EVENTS: `test.${suffix}.events`,
    TOPIC_IDENTIFIES: `test.${suffix}.identifies`,
    TOPIC_ACCOUNTS: `test.${suffix}.accounts`,
    TOPIC_DLQ: `test.${suffix}.dlq`,
    TOPIC_ERASURES: `test.${suffix}.erasures`,
    TOPIC_REFUSALS: `test.${suffix}.refusals`,
    TOPIC_KEYS: `test.${suffix}.keys`,
    TOPIC_PARTITIONS: '2',
    CLICKHOUSE_DATABASE: `test_${suffix}`,
    PROJECTOR_GROUP_ID: `projector-${suffix}`,
    PROJECTOR_PORT: '0',
    PROJECTOR_MAX_WAIT_MS: '100',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...over,
  }
}

export async function startServices(t: Teardown, opts: HarnessOptions = {}): Promise<TestServices> {
  const suffix = opts.suffix ?? randomBytes(5).toString('hex')
  const env: Record<string, string> = {
    ...isolatedEnv(suffix),
    TOPIC_PARTITIONS: '3',
    INGEST_PORT: '0',
    INGEST_ADMIN_PORT: '0',
    INGEST_INSTANCE_ID: `ingest-${suffix}-${randomBytes(3).toString('hex')}`,
    USAGE_REFRESH_MS: '300',
    USAGE_RECONCILE_MS: '300',
    LIVE_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...opts.env,
  }
  const log = createLogger(env.LOG_LEVEL as any, { test: suffix })
  const projectorCfg = loadProjectorConfig(env)
  const ingestCfg = loadIngestConfig(env)

  // The projector first: it applies the ClickHouse migrations the ingest's usage reads depend on.
  let projector: TestServices['projector']
  let projectorServer: Server | undefined
  if (opts.projector !== false) {
    projector = await createProjectorService(projectorCfg, log)
    projectorServer = await projector.start()
  }
  let ingest: TestServices['ingest']
  let ingestServer: Server | undefined
  if (opts.ingest !== false) {
    ingest = await createIngestService(ingestCfg, log)
    ingestServer = await ingest.start()
  }
  const { admin, close: closeAdmin } = await openAdmin(env)
  const ch = await createClickHouse(projectorCfg.clickhouse)
  const kafka = createKafka({ ...projectorCfg.kafka, clientId: `test-${suffix}` }, log)
  const topics = projectorCfg.topics

  t.teardown(async () => {
    await ingest?.close().catch(() => undefined)
    await projector?.close().catch(() => undefined)
    await closeAdmin().catch(() => undefined)
    if (!opts.suffix) {
      await ch.command({ query: `DROP DATABASE IF EXISTS ${projectorCfg.clickhouse.database}` }).catch(() => undefined)
      const ka = kafka.admin()
      await ka.connect()
      await ka.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined)
      await ka.disconnect()
    }
    await ch.close()
  })

  const port = (s?: Server) => (s ? (s.address() as AddressInfo).port : 0)
  const ingestUrl = `http://127.0.0.1:${port(ingestServer)}`
  const ingestAdminUrl = `http://127.0.0.1:${port(ingest?.adminServer)}`
  const projectorUrl = `http://127.0.0.1:${port(projectorServer)}`
  // 64-bit integers (count(), the *_ms columns) as JSON strings, as 24.8 writes them by default: ClickHouse
  // 25.8 made numbers the default. The services read both (Number()); tests compare strings.
  const q = async <T>(query: string) =>
    (
      await ch.query({
        query,
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
      })
    ).json<T>()

  return {
    suffix,
    env,
    ingestUrl,
    ingestAdminUrl,
    projectorUrl,
    admin,
    ch,
    database: projectorCfg.clickhouse.database,
    topics,
    kafka,
    ingest,
    projector,
    query: q,
    async createKey(o = {}) {
      const accountId = o.account ?? `acct_${randomBytes(4).toString('hex')}`
      if (!admin.accounts.has(accountId)) await admin.createAccount({ accountId, plan: o.plan ?? 'launch' })
      const { secret, record } = await admin.createKey({
        accountId,
        name: o.name ?? 'test key',
        type: o.type ?? 'live',
      })
      await waitUntil(
        () => !ingest || ingest.deps.keys.lookup(record.key_hash) !== undefined,
        5000,
        'the key to reach the ingest key table',
      )
      return { key: secret, keyId: record.key_id, accountId }
    },
    async waitForRows<T>(query: string, min = 1, timeoutMs = 15_000) {
      const start = Date.now()
      let rows: T[] = []
      while (Date.now() - start < timeoutMs) {
        rows = await q<T>(query)
        if (rows.length >= min) return rows
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${min} rows (had ${rows.length}): ${query}`)
    },
    async post(path, body, init = {}) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
        ...init.headers,
      }
      const res = await fetch(ingestUrl + path, {
        method: 'POST',
        headers,
        body: typeof body === 'string' || body instanceof Uint8Array ? (body as any) : JSON.stringify(body),
      })
      return readResponse(res)
    },
  }
}

export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Status, headers and body of a response; the body parsed when it is JSON, else the text. */
export async function readResponse(res: Response): Promise<{ status: number; headers: Headers; body: any }> {
  const text = await res.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body }
}
