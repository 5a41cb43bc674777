// Test helpers for integration tests against a real ClickHouse: a fresh, randomly
// named database per test file, migrated by the project's own runner, dropped at the end.

import { randomBytes, randomUUID } from 'node:crypto'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { migrate } from '../../schemas/clickhouse/migrate.js'
import type { EventRecord, IdentifyRecord } from '../../schemas/records.js'

export const DEFAULT_CLICKHOUSE_URL = 'http://127.0.0.1:18123'

/** Where the tests' ClickHouse is and whom they connect as: CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD. */
export function testClickHouseConnection(env: NodeJS.ProcessEnv = process.env): {
  url: string
  username: string
  password: string
} {
  return {
    url: env.CLICKHOUSE_URL || DEFAULT_CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER || 'default',
    password: env.CLICKHOUSE_PASSWORD || '',
  }
}

export interface TestDatabase {
  client: ClickHouseClient
  database: string
  url: string
  /** Drops the database and closes the client. */
  drop(): Promise<void>
}

export interface TeardownHost {
  teardown(fn: () => unknown): void
}

/**
 * Creates `test_<prefix>_<random>` and applies the migrations (unless migrate: false).
 * Pass the tap test object as `t` to drop the database when the file ends.
 */
export async function createTestDatabase(
  opts: { prefix?: string; migrate?: boolean; t?: TeardownHost; env?: NodeJS.ProcessEnv } = {},
): Promise<TestDatabase> {
  const connection = testClickHouseConnection(opts.env)
  const url = connection.url
  const prefix = (opts.prefix ?? 'ch').replace(/[^A-Za-z0-9_]/g, '_')
  const database = `test_${prefix}_${randomBytes(6).toString('hex')}`
  const client = createClient(connection)
  if (opts.migrate !== false) await migrate(client, database)
  else await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
  const db: TestDatabase = {
    client,
    database,
    url,
    async drop() {
      try {
        await client.command({ query: `DROP DATABASE IF EXISTS ${database}` })
      } finally {
        await client.close()
      }
    },
  }
  opts.t?.teardown(() => db.drop())
  return db
}

/** The client with one of its methods replaced (a test's fault, count or hook around the real call); every
 *  other member is the client's own. */
export function overriding<K extends 'command' | 'query' | 'insert'>(
  client: ClickHouseClient,
  method: K,
  replacement: ClickHouseClient[K],
): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop) {
      if (prop === method) return replacement
      const v = Reflect.get(target, prop)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}

/** Runs a read query and returns its JSONEachRow rows. */
export async function queryRows<T = Record<string, unknown>>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>()
}

/**
 * A mutation of `database`.events that fails on every row, so it is never done (H85): ClickHouse applies a
 * table's mutations in order, so it holds every later one of the table. Returns its id.
 */
export async function stuckMutation(client: ClickHouseClient, database: string): Promise<string> {
  try {
    // On a column, not a constant: 18.16 evaluates a constant throwIf when the ALTER is parsed.
    await client.command({
      query: `ALTER TABLE ${database}.events UPDATE properties = toString(throwIf(length(event_id) > 0)) WHERE 1`,
    })
  } catch {
    // Current ClickHouse waits for the mutation (mutations_sync) and reports its failure; it stays pending.
  }
  const [m] = await queryRows<{ mutation_id: string }>(
    client,
    `SELECT mutation_id FROM system.mutations WHERE database = '${database}' AND table = 'events' AND is_done = 0`,
  )
  if (!m) throw new Error('the stuck mutation is not pending')
  return m.mutation_id
}

/** The delete mutations of `database` (done or not) its servers list. */
export async function deleteMutations(client: ClickHouseClient, database: string): Promise<number> {
  const [row] = await queryRows<{ n: string }>(
    client,
    `SELECT count() AS n FROM system.mutations WHERE database = '${database}' AND position(command, 'DELETE') > 0`,
  )
  return Number(row!.n)
}

/** Forces merges, so tests can prove results do not depend on merge timing. */
export async function optimizeFinal(client: ClickHouseClient, database: string, tables: string[]): Promise<void> {
  for (const table of tables) await client.command({ query: `OPTIMIZE TABLE ${database}.${table} FINAL` })
}

const BASE_MS = Date.UTC(2024, 4, 15, 12, 0, 0, 0)

export function makeEvent(over: Partial<EventRecord> = {}): EventRecord {
  return {
    event_id: randomUUID(),
    account_id: 'acc_1',
    environment: 'live',
    key_id: 'key_1',
    event: 'page_viewed',
    user_id: 'user_1',
    user_email: null,
    user_traits: null,
    timestamp: BASE_MS,
    original_timestamp: null,
    received_at: BASE_MS + 50,
    sent_at: null,
    timestamp_flagged: false,
    properties: '{}',
    context: '{}',
    ip: null,
    user_agent: null,
    message_id: null,
    ...over,
  }
}

export function makeIdentify(over: Partial<IdentifyRecord> = {}): IdentifyRecord {
  return {
    event_id: randomUUID(),
    account_id: 'acc_1',
    environment: 'live',
    key_id: 'key_1',
    user_id: 'user_1',
    email: null,
    traits: '{}',
    timestamp: BASE_MS,
    original_timestamp: null,
    received_at: BASE_MS + 50,
    sent_at: null,
    timestamp_flagged: false,
    context: '{}',
    ip: null,
    user_agent: null,
    message_id: null,
    ...over,
  }
}
