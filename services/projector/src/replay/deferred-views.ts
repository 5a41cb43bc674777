// A replay into a fresh database fills its aggregating views once, after its last insert (docs/design.md A37).
//
// Every insert into events runs the materialized views that read it (users, person_weeks, usage, groups,
// identity links) over that insert's block alone. A replay's block of tens of thousands of events of as
// many persons aggregates to nearly as many rows: a part in each view's table an insert, merged again and
// again later. Nothing reads those tables in a fresh database until the replay ends, so while it runs their
// views are dropped, and afterwards each view's own SELECT fills its table once, a partition of its source
// at a time, and the view is created again. The views into retry_ids stay: the replay's H16 lookup reads
// that table while it runs (stored-ids.ts, clickhouse/deduplication.ts).
//
// The dropped views' statements are written into the fresh database first (DEFERRED_VIEWS_TABLE), so that
// a replay that stops before filling them leaves a database that says so: the next replay into it keeps
// them dropped and fills them from every row then stored, and the swap refuses the database until then
// (fresh.ts). Every view so deferred aggregates idempotently (uniqExact, argMax, min, max, or a
// ReplacingMergeTree), so a table filled from rows it had partly seen before is still exact.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { assertIdentifier, escapeString, ident, sql } from '../../../../schemas/clickhouse/sql.js'
import { TABLES } from '../clickhouse/tables.js'
import { queryRows } from '../../../shared/src/clickhouse.js'

export const DEFERRED_VIEWS_TABLE = 'replay_deferred_views'

/** Tables the replay reads while it runs: views into them are never deferred. */
const READ_WHILE_REPLAYING = new Set<string>([TABLES.retryIds])

/** A view's statement split into what filling its table needs. */
export interface ViewParts {
  name: string
  target: string
  source: string
  /** The view's SELECT, as the server normalized it. */
  select: string
  /** Where in `select` its one `FROM db.source` ends: a fill's PREWHERE goes there. */
  fromEnd: number
}

const NAME = '([A-Za-z_][A-Za-z0-9_]*)'
const HEAD = new RegExp(`^CREATE MATERIALIZED VIEW ${NAME}\\.${NAME} TO ${NAME}\\.${NAME} `)
const FROM = new RegExp(`\\bFROM\\s+${NAME}\\.${NAME}\\b`, 'g')

/**
 * A materialized view's statement as system.tables gives it (`CREATE MATERIALIZED VIEW db.v TO db.t (columns)
 * AS SELECT ... FROM db.s ...`), split into its parts; undefined for any other shape, and for a SELECT that
 * reads more than one table, a subquery or a PREWHERE of its own: such a view stays on while a replay runs.
 */
export function viewParts(database: string, create: string): ViewParts | undefined {
  const head = HEAD.exec(create)
  if (!head || head[1] !== database || head[3] !== database) return undefined
  const at = create.indexOf(') AS SELECT ')
  if (at < 0) return undefined
  const select = create.slice(at + ') AS '.length)
  const froms = [...select.matchAll(FROM)]
  if (froms.length !== 1 || froms[0]![1] !== database) return undefined
  if (/\bJOIN\b|\bPREWHERE\b|\(\s*SELECT\b/i.test(select)) return undefined
  const from = froms[0]!
  return { name: head[2]!, target: head[4]!, source: from[2]!, select, fromEnd: from.index! + from[0].length }
}

/** The statement that fills a view's table from one partition of its source, with the view's own SELECT. */
export function fillStatement(database: string, view: ViewParts, columns: string[], partitionId: string): string {
  // PREWHERE is ANDed with the SELECT's own WHERE, and the server reads only that partition's parts.
  const { select: q, fromEnd } = view
  const select = `${q.slice(0, fromEnd)} PREWHERE _partition_id = '${escapeString(partitionId)}'${q.slice(fromEnd)}`
  const cols = columns.map((c) => `\`${assertIdentifier(c)}\``).join(', ')
  return `INSERT INTO ${ident(database, view.target).text} (${cols}) ${select}`
}

/** A materialized view's statement as system.tables gives it, to create the view again (the swap's and the fill's). */
export const createViewAgain = (create: string): string =>
  create.replace(/^CREATE MATERIALIZED VIEW /i, 'CREATE MATERIALIZED VIEW IF NOT EXISTS ')

interface Deferred extends ViewParts {
  create: string
  columns: string[]
}

/**
 * A fill's GROUP BY holds a partition's keys; past this it spills to disk instead of growing (a month of a
 * large account's users or event ids).
 */
const FILL_SETTINGS: ClickHouseSettings = { max_bytes_before_external_group_by: String(1 << 30) }

type Ch = Pick<ClickHouseClient, 'command' | 'query' | 'insert'>

/** The views of `database` a replay leaves off while it runs, dropped; `fill` fills their tables and creates them again. */
export class DeferredViews {
  private constructor(
    private readonly database: string,
    readonly views: readonly Deferred[],
  ) {}

  /**
   * Drops the views into every table but those the replay reads, after writing their statements into the
   * database; keeps those a replay into it that stopped before its fill left dropped.
   */
  static async defer(ch: Ch, database: string): Promise<DeferredViews> {
    assertIdentifier(database)
    const record = ident(database, DEFERRED_VIEWS_TABLE)
    await ch.command({
      query: `CREATE TABLE IF NOT EXISTS ${record} (name String, create_query String, columns Array(String)) ENGINE = MergeTree ORDER BY name`,
    })
    const left = await queryRows<{ name: string; create_query: string; columns: string[] }>(
      ch,
      sql`SELECT name, any(create_query) AS create_query, any(columns) AS columns FROM ${record} GROUP BY name ORDER BY name`,
    )
    const present = await queryRows<{ name: string; create_table_query: string; columns: string[] }>(
      ch,
      sql`SELECT t.name AS name, t.create_table_query AS create_table_query,
            arrayMap(x -> x.2, arraySort(groupArray((c.position, c.name)))) AS columns
          FROM system.tables AS t INNER JOIN system.columns AS c ON c.database = t.database AND c.table = t.name
          WHERE t.database = ${database} AND t.engine = 'MaterializedView'
          GROUP BY t.name, t.create_table_query ORDER BY t.name`,
    )
    const views: Deferred[] = []
    for (const l of left) {
      const parts = viewParts(database, l.create_query)
      if (parts) views.push({ ...parts, create: l.create_query, columns: l.columns })
    }
    const running: Deferred[] = []
    for (const p of present) {
      const parts = viewParts(database, p.create_table_query)
      if (!parts || READ_WHILE_REPLAYING.has(parts.target) || views.some((v) => v.name === parts.name)) continue
      running.push({ ...parts, create: p.create_table_query, columns: p.columns })
    }
    if (running.length > 0) {
      await ch.insert({
        table: record.text,
        values: running.map((v) => ({ name: v.name, create_query: v.create, columns: v.columns })),
        format: 'JSONEachRow',
      })
    }
    views.push(...running)
    // A view the stopped replay had already created again is dropped too: its table is filled anyway.
    for (const v of views) await ch.command({ query: `DROP TABLE IF EXISTS ${ident(database, v.name)}` })
    return new DeferredViews(database, views)
  }

  /**
   * Fills each deferred view's table from its source, a partition at a time, and creates the view again;
   * then drops the record. `onStep` after each statement. Returns the statements run.
   */
  async fill(ch: Ch, onStep?: (done: number, total: number) => void): Promise<number> {
    const db = this.database
    const sources = [...new Set(this.views.map((v) => v.source))]
    const partitions = new Map<string, string[]>()
    for (const source of sources) {
      const ps = await queryRows<{ p: string }>(
        ch,
        sql`SELECT DISTINCT partition_id AS p FROM system.parts WHERE database = ${db} AND table = ${source} AND active ORDER BY p`,
      )
      partitions.set(
        source,
        ps.map((x) => x.p),
      )
    }
    const total = this.views.reduce((n, v) => n + partitions.get(v.source)!.length, 0)
    let done = 0
    for (const v of this.views) {
      for (const p of partitions.get(v.source)!) {
        await ch.command({ query: fillStatement(db, v, v.columns, p), clickhouse_settings: FILL_SETTINGS })
        onStep?.(++done, total)
      }
      await ch.command({ query: createViewAgain(v.create) })
    }
    await ch.command({ query: `DROP TABLE IF EXISTS ${ident(db, DEFERRED_VIEWS_TABLE)}` })
    return done
  }
}
