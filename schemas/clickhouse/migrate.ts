// Ordered ClickHouse migrations (A6). Files NNN_name.sql in this folder are applied in
// order of NNN; each file is split into statements at a `;` that ends a line, and
// `{db}` in a file is replaced by the (validated) database name. Every statement must
// be safe to run again (IF NOT EXISTS; a backfill INSERT ... SELECT only into a
// ReplacingMergeTree table, where a row inserted twice is a duplicate that FINAL, DISTINCT
// and the merges remove, or into a table of uniqExact states alone, where a set merged with
// itself is the same set; a view dropped is made again at once or retired for good; migrate.test.ts
// checks each file), so a file that failed half-way, or two processes starting together, can
// simply run it again. An applied file whose checksum changed
// is refused: write a new migration instead of editing an applied one.
// With `cluster` (CLICKHOUSE_CLUSTER), the same files are rewritten for a replicated, sharded cluster
// by cluster.ts (docs/design.md H44); schema_migrations stays a local table of the server the runner
// talks to (docs/scaling.md, point 6).

import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { ClickHouseClient } from '@clickhouse/client'
import { assertIdentifier, formatDateTime } from './sql.js'
import { CH_ERRORS, serverErrorCode } from './server-error.js'
import { clusterSteps, shardedTables, type ClusterStep } from './cluster.js'

export const MIGRATIONS_DIR = fileURLToPath(new URL('.', import.meta.url))
const FILE_NAME = /^(\d{3,})_([A-Za-z0-9_]+)\.sql$/

export interface Migration {
  version: number
  name: string
  file: string
  checksum: string
  statements: string[]
}

export interface MigrateOptions {
  log?: (message: string) => void
  /** Folder holding the NNN_name.sql files; defaults to this module's folder. */
  dir?: string
  /** A cluster of the servers' <remote_servers>: DDL ON CLUSTER, replicated and Distributed tables (H44). */
  cluster?: string
}

export interface MigrateResult {
  applied: Migration[]
  skipped: Migration[]
}

export class MigrationError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'MigrationError'
    this.code = code
  }
}

/** Splits a migration file into statements: `;` at the end of a line ends one. */
export function splitStatements(text: string): string[] {
  return text
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((chunk) =>
      chunk
        .split(/\r?\n/)
        .filter((line) => !/^\s*--/.test(line))
        .join('\n')
        .trim(),
    )
    .filter((s) => s.length > 0)
}

export function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => FILE_NAME.test(f)).sort()
  const out: Migration[] = []
  for (const file of files) {
    const m = FILE_NAME.exec(file)!
    const text = await readFile(`${dir.replace(/\/$/, '')}/${file}`, 'utf8')
    const version = Number(m[1])
    if (out.some((x) => x.version === version)) {
      throw new MigrationError('DUPLICATE_VERSION', `two migrations share version ${version}`)
    }
    out.push({ version, name: m[2]!, file, checksum: checksum(text), statements: splitStatements(text) })
  }
  return out
}

export function renderStatement(statement: string, database: string): string {
  return statement.replaceAll('{db}', assertIdentifier(database))
}

interface AppliedRow {
  version: number
  name: string
  checksum: string
}

/** Creates the database if needed and applies pending migrations in order. */
export async function migrate(
  client: ClickHouseClient,
  database: string,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const db = assertIdentifier(database)
  const log = options.log ?? (() => {})
  const migrations = await loadMigrations(options.dir)

  const cluster = options.cluster === undefined ? undefined : assertIdentifier(options.cluster)
  await tolerantCommand(client, `CREATE DATABASE IF NOT EXISTS ${db}${cluster ? ` ON CLUSTER ${cluster}` : ''}`)
  const sharded = shardedTables(migrations.flatMap((m) => m.statements.map((s) => renderStatement(s, db))))
  const steps = (statement: string): ClusterStep[] =>
    cluster ? clusterSteps(statement, { cluster, database: db, sharded }) : [{ kind: 'ddl', sql: statement }]
  await tolerantCommand(
    client,
    `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations
(
    version UInt32,
    name String,
    checksum String,
    applied_at DateTime('UTC')
)
ENGINE = ReplacingMergeTree()
ORDER BY version`,
  )

  const appliedRows = await (
    await client.query({
      query: `SELECT version, any(name) AS name, groupUniqArray(checksum) AS checksums
FROM ${db}.schema_migrations GROUP BY version ORDER BY version`,
      format: 'JSONEachRow',
    })
  ).json<{ version: number | string; name: string; checksums: string[] }>()

  const applied = new Map<number, AppliedRow>()
  for (const r of appliedRows) {
    const version = Number(r.version)
    const m = migrations.find((x) => x.version === version)
    for (const sum of r.checksums) {
      if (m && sum !== m.checksum) {
        throw new MigrationError(
          'CHECKSUM_MISMATCH',
          `migration ${m.file} was applied to ${db} with checksum ${sum} but the file now has ${m.checksum}; ` +
            'applied migrations must not change: add a new one',
        )
      }
    }
    if (!m) log(`migration ${version} (${r.name}) is applied to ${db} but has no file here`)
    applied.set(version, { version, name: r.name, checksum: r.checksums[0] ?? '' })
  }

  const result: MigrateResult = { applied: [], skipped: [] }
  for (const m of migrations) {
    if (applied.has(m.version)) {
      result.skipped.push(m)
      continue
    }
    log(`applying ${m.file} to ${db} (${m.statements.length} statements)`)
    for (const [i, statement] of m.statements.entries()) {
      try {
        for (const step of steps(renderStatement(statement, db))) await runStep(client, step)
      } catch (cause) {
        throw new MigrationError(
          'STATEMENT_FAILED',
          `migration ${m.file} statement ${i + 1} failed: ${(cause as Error).message}`,
          { cause },
        )
      }
    }
    await client.insert({
      table: `${db}.schema_migrations`,
      values: [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: formatDateTime(new Date()) }],
      format: 'JSONEachRow',
    })
    result.applied.push(m)
  }
  if (result.applied.length === 0) log(`${db} is up to date (${migrations.length} migrations)`)
  return result
}

async function runStep(client: ClickHouseClient, step: ClusterStep): Promise<void> {
  if (step.kind === 'ddl') return tolerantCommand(client, step.sql)
  const [row] = await (await client.query({ query: step.sql, format: 'JSONEachRow' })).json<{ n: number | string }>()
  if (Number(row?.n ?? 0) !== 0) throw new MigrationError('CLUSTER_BACKFILL', step.reason)
}

/**
 * Runs a DDL statement. When two processes race on `IF NOT EXISTS`, the loser can still
 * get "already exists"; that outcome is what the statement asked for, so it is success.
 */
const ADD_COLUMN = /^\s*ALTER\s+TABLE\s+\S+\s+ADD\s+COLUMN\s/i

async function tolerantCommand(client: ClickHouseClient, query: string): Promise<void> {
  try {
    await client.command({ query })
  } catch (err) {
    const code = serverErrorCode(err)
    const ifNotExists = /\bIF\s+NOT\s+EXISTS\b/i.test(query)
    if (ifNotExists && (code === CH_ERRORS.TABLE_ALREADY_EXISTS || code === CH_ERRORS.DATABASE_ALREADY_EXISTS)) return
    // 18.16 has no ADD COLUMN IF NOT EXISTS: run again, an ADD COLUMN finds its column there, which is what it asked for.
    if (
      ADD_COLUMN.test(query) &&
      (code === CH_ERRORS.DUPLICATE_COLUMN || code === CH_ERRORS.ILLEGAL_COLUMN) &&
      /already exists/i.test((err as Error).message)
    )
      return
    throw err
  }
}
