// A fresh set of tables for a replay, and the swap that puts it in place of the live one.
//
// The swap renames table by table, in one RENAME statement (live.t -> fresh.t__swap, fresh.t ->
// live.t, fresh.t__swap -> fresh.t for every table). Plain views are left alone: they name their
// tables (`FROM <db>.events`) and resolve them at query time, so after the swap the live views read
// the swapped-in tables. Materialized views need care: the server binds them to their source and
// target by table UUID, so they would follow the renamed tables into the other database (EXCHANGE
// TABLES moves the UUIDs the same way). So both databases' materialized views are dropped before the
// rename and created again afterwards from their own CREATE statements: they then feed the tables
// that now carry the names. Inserts that land while they are gone are repaired by the
// catch-up replay that follows the swap (see replay/index.ts).
import type { ClickHouseClient } from '@clickhouse/client'
import { assertIdentifier } from '../../../../schemas/clickhouse/sql.js'
import type { CommonConfig } from '../../../shared/src/env.js'
import { applyMigrations } from '../clickhouse/apply-migrations.js'
import type { Logger } from '../../../shared/src/log.js'
import { AppError } from '../../../shared/src/errors.js'
import { queryRows } from '../../../shared/src/clickhouse.js'
import { REFUSAL_TABLES } from '../refusals/prune.js'
import { createViewAgain, DEFERRED_VIEWS_TABLE } from './deferred-views.js'

/** `<db>_replay_<YYYYMMDDhhmmss>` (UTC). */
export function freshDatabaseName(live: string, now = new Date()): string {
  const ts = now.toISOString().replace(/[-:T]/g, '').slice(0, 14)
  return assertIdentifier(`${live}_replay_${ts}`)
}

/** Creates the database and runs every migration into it (the same DDL the projector applies at start). */
export async function createFreshDatabase(cfg: CommonConfig['clickhouse'], name: string, log: Logger): Promise<void> {
  await applyMigrations(cfg, name, (m) => log.info(m))
}

interface TableInfo {
  name: string
  engine: string
  create_table_query: string
}

const tables = (ch: ClickHouseClient, db: string): Promise<TableInfo[]> =>
  queryRows<TableInfo>(
    ch,
    `SELECT name, engine, create_table_query FROM system.tables WHERE database = '${db}' ORDER BY name`,
  )

// The refusal tables are their own consumer's (H57), not the event walk's: a replay keeps them as they are.
const KEEP_IN_PLACE = new Set<string>(['schema_migrations', ...REFUSAL_TABLES])
const isDataTable = (t: TableInfo) =>
  t.engine !== 'View' && t.engine !== 'MaterializedView' && !t.name.startsWith('.inner.') && !KEEP_IN_PLACE.has(t.name)

export class SwapError extends AppError {
  readonly code = 'SWAP_FAILED'
  constructor(message: string) {
    super(message, { retriable: false })
  }
}

export interface SwapResult {
  tables: string[]
  materializedViews: string[]
}

/** Exchanges the data tables of `live` and `fresh` (see the file comment). */
export async function swapDatabases(
  ch: ClickHouseClient,
  live: string,
  fresh: string,
  log: Logger,
): Promise<SwapResult> {
  assertIdentifier(live)
  assertIdentifier(fresh)
  const [liveTables, freshTables] = await Promise.all([tables(ch, live), tables(ch, fresh)])
  if (freshTables.some((t) => t.name === DEFERRED_VIEWS_TABLE)) {
    throw new SwapError(
      `${fresh} still has views its replay dropped and did not fill (${DEFERRED_VIEWS_TABLE}, A37): replay into it again first`,
    )
  }
  const liveData = liveTables.filter(isDataTable).map((t) => t.name)
  const freshData = freshTables.filter(isDataTable).map((t) => t.name)
  if (liveData.join(',') !== freshData.join(',')) {
    throw new SwapError(
      `${live} has tables [${liveData}] but ${fresh} has [${freshData}]: run the same migrations on both first`,
    )
  }
  if (liveData.length === 0) throw new SwapError(`${live} has no tables to swap`)
  const mvs = [...liveTables.map((t) => ({ db: live, ...t })), ...freshTables.map((t) => ({ db: fresh, ...t }))].filter(
    (t) => t.engine === 'MaterializedView',
  )
  for (const mv of mvs) {
    if (!/^CREATE MATERIALIZED VIEW /i.test(mv.create_table_query) || !/\bTO\b/i.test(mv.create_table_query)) {
      throw new SwapError(`materialized view ${mv.db}.${mv.name} has no TO table; it cannot be recreated safely`)
    }
  }
  // The statements are logged first: if the process dies mid-swap, they recreate the views by hand.
  for (const mv of mvs)
    log.info('materialized view to recreate after the swap', {
      view: `${mv.db}.${mv.name}`,
      query: mv.create_table_query,
    })
  for (const mv of mvs) await ch.command({ query: `DROP TABLE IF EXISTS ${mv.db}.${mv.name}` })
  try {
    const renames = liveData.flatMap((t) => [
      `${live}.${t} TO ${fresh}.${t}__swap`,
      `${fresh}.${t} TO ${live}.${t}`,
      `${fresh}.${t}__swap TO ${fresh}.${t}`,
    ])
    await ch.command({ query: `RENAME TABLE ${renames.join(', ')}` })
  } finally {
    for (const mv of mvs) await ch.command({ query: createViewAgain(mv.create_table_query) })
  }
  return { tables: liveData, materializedViews: mvs.map((m) => `${m.db}.${m.name}`) }
}
