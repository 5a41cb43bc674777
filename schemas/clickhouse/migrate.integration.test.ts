// The migration runner against the real ClickHouse (CLICKHOUSE_URL).
import t from 'tap'
import { cp, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, MigrationError, MIGRATIONS_DIR } from './migrate.js'
import { createTestDatabase, queryRows } from '../../test/support/clickhouse-helpers.js'

const db = await createTestDatabase({ prefix: 'migrate', migrate: false, t })
const { client } = db

t.test('creates the database, applies every file once, records it; then idempotent', async (t) => {
  const target = `${db.database}_a`
  t.teardown(() => client.command({ query: `DROP DATABASE IF EXISTS ${target}` }))
  const logs: string[] = []
  const first = await migrate(client, target, { log: (m) => logs.push(m) })
  t.ok(first.applied.length >= 5)
  t.match(logs[0], /applying 001_events\.sql/)
  const second = await migrate(client, target)
  t.equal(second.applied.length, 0)
  t.equal(second.skipped.length, first.applied.length)
  const tables = await queryRows<{ name: string }>(
    client,
    `SELECT name FROM system.tables WHERE database = '${target}' ORDER BY name`,
  )
  t.same(
    tables.map((r) => r.name),
    [
      'event_counts_dirty',
      'event_counts_hourly',
      'events',
      'events_by_person',
      'events_dedup',
      'groups',
      'groups_from_events_mv',
      'groups_view',
      'identifies',
      'identifies_dedup',
      'identity_links',
      'identity_links_from_events_mv',
      'identity_links_from_identifies_mv',
      'identity_map',
      'person_counts_daily',
      'person_weeks',
      'person_weeks_from_events_mv',
      'property_counts_daily',
      'property_counts_hourly',
      'refusals_by_minute',
      'refused_samples',
      'retry_ids',
      'retry_ids_from_events_mv',
      'retry_ids_from_identifies_mv',
      'schema_migrations',
      'usage_monthly',
      'usage_monthly_sharded',
      'usage_monthly_sharded_mv',
      'usage_monthly_view',
      'user_traits',
      'user_traits_latest',
      'users',
      'users_from_events_mv',
      'users_from_identifies_mv',
      'users_view',
    ],
  )
  const recorded = await queryRows<{ version: number; name: string; checksum: string }>(
    client,
    `SELECT version, name, checksum FROM ${target}.schema_migrations ORDER BY version`,
  )
  t.same(
    recorded.map((r) => [Number(r.version), r.name, r.checksum]),
    first.applied.map((m) => [m.version, m.name, m.checksum]),
  )
})

t.test('two processes migrating together both succeed', async (t) => {
  const target = `${db.database}_b`
  t.teardown(() => client.command({ query: `DROP DATABASE IF EXISTS ${target}` }))
  const results = await Promise.all([migrate(client, target), migrate(client, target), migrate(client, target)])
  t.ok(results.every((r) => r.applied.length + r.skipped.length >= 5))
  const [{ n }] = (await queryRows<{ n: string }>(
    client,
    `SELECT uniqExact(version) AS n FROM ${target}.schema_migrations`,
  )) as [{ n: string }]
  t.equal(Number(n), results[0]!.applied.length + results[0]!.skipped.length)
  t.equal((await migrate(client, target)).applied.length, 0)
})

t.test('a new file is applied; a changed applied file is refused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ch-migrations-'))
  const target = `${db.database}_c`
  t.teardown(async () => {
    await client.command({ query: `DROP DATABASE IF EXISTS ${target}` })
    await rm(dir, { recursive: true, force: true })
  })
  await cp(MIGRATIONS_DIR, dir, { recursive: true, filter: (src) => !/\.ts$/.test(src) })
  await migrate(client, target, { dir })
  await writeFile(join(dir, '900_extra.sql'), 'CREATE TABLE IF NOT EXISTS {db}.extra (x UInt8) ENGINE = TinyLog;\n')
  const added = await migrate(client, target, { dir })
  t.same(
    added.applied.map((m) => m.file),
    ['900_extra.sql'],
  )
  await appendFile(join(dir, '001_events.sql'), '\n-- edited after it was applied\n')
  const err = await migrate(client, target, { dir }).catch((e: unknown) => e)
  t.ok(err instanceof MigrationError)
  t.equal((err as MigrationError).code, 'CHECKSUM_MISMATCH')
  t.match((err as Error).message, /001_events\.sql/)
})

t.test('an invalid database name is refused before any query', async (t) => {
  await t.rejects(migrate(client, 'bad-name; DROP DATABASE x'), /invalid SQL identifier/)
})
