// The migrations' statements for a ClickHouse cluster (docs/design.md H44, docs/scaling.md "A ClickHouse
// cluster"): the same NNN_name.sql files, rewritten statement by statement when CLICKHOUSE_CLUSTER names
// a cluster of the servers' <remote_servers>.
//
// - A MergeTree table X becomes a replicated local table X_local (Replicated*MergeTree, ZooKeeper path
//   /clickhouse/tables/{shard}/<db>/X_local, replica {replica}: the server's macros) plus a Distributed
//   table under the name X, so every reader keeps its queries and the projector inserts through X.
// - A column added to a sharded table is added to its local table; its Distributed table is made again.
// - Materialized views read and write the local tables (a Distributed insert arrives on each shard as an
//   insert into X_local); plain views stay as they are, over the Distributed names.
// - Every DDL statement carries ON CLUSTER, so one run on one server migrates all of them.
// - A backfill (INSERT ... SELECT) cannot be written through a Distributed table without a sharding key, and
//   the runner talks to one server: in cluster mode it runs only where it would copy nothing (a database built
//   by replay, A1), and otherwise stops the migration with CLUSTER_BACKFILL instead of half-copying.
// - Any other statement is refused (CLUSTER_UNSUPPORTED), so a new kind of migration is rewritten on purpose.
// Pure functions: migrate.ts runs what they return.

import { assertIdentifier } from './sql.js'

/**
 * The Distributed tables' sharding keys (docs/scaling.md, point 2): every copy of a record, and all of one
 * user's rows, land on one shard, so FINAL and the ReplacingMergeTree merges see every duplicate. Tables not
 * named here are written only by materialized views into their local tables; their Distributed tables are
 * for reading, and an insert through one is refused by ClickHouse (no sharding key, two shards).
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  events: 'cityHash64(account_id, user_id)',
  identifies: 'cityHash64(account_id, user_id)',
  user_traits: 'cityHash64(account_id, user_id)',
  /** Every rebuild of one hour's count on one shard, so FINAL keeps the latest (U19). */
  event_counts_hourly: 'cityHash64(account_id, event)',
  /** Every mark of one account's hours on one shard (U25). */
  event_counts_dirty: 'cityHash64(account_id)',
  /** Every recount of one key's rows of an account on one shard, so FINAL keeps the largest (U26). */
  property_counts_hourly: 'cityHash64(account_id, key)',
  /** As property_counts_hourly's, so a day's sum reads its hours on the shard it writes to (U29). */
  property_counts_daily: 'cityHash64(account_id, key)',
  /** Every recount of one person's day on one shard, as their events are, so FINAL keeps the largest (U33). */
  person_counts_daily: 'cityHash64(account_id, user_id)',
}

export const LOCAL_SUFFIX = '_local'

export type ClusterStep =
  | { kind: 'ddl'; sql: string }
  /** Runs the query (one row, `n`); the migration goes on only if n is 0. */
  | { kind: 'require-empty'; sql: string; reason: string }

export interface ClusterTarget {
  cluster: string
  database: string
  /** Tables the migrations create with a MergeTree engine: each becomes X_local + Distributed X. */
  sharded: ReadonlySet<string>
}

export class ClusterRewriteError extends Error {
  readonly code = 'CLUSTER_UNSUPPORTED'
  override name = 'ClusterRewriteError'
}

const CREATE_TABLE = /^CREATE TABLE IF NOT EXISTS (\w+)\.(\w+)\s*\(/i
const MERGE_TREE_ENGINE = /\bENGINE\s*=\s*(\w*)MergeTree\(([^)]*)\)/i
const CREATE_VIEW = /^CREATE VIEW IF NOT EXISTS (\w+)\.(\w+)(\s+AS\b)/i
const CREATE_MV = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)\.(\w+)(\s+TO\b)/i
const DROP_TABLE = /^DROP TABLE IF EXISTS (\w+)\.(\w+)\s*$/i
const INSERT_SELECT = /^INSERT INTO (\w+)\.(\w+)\s+(SELECT\b[\s\S]*)$/i
const ADD_COLUMN = /^ALTER TABLE (\w+)\.(\w+)\s+(ADD COLUMN\b[\s\S]*)$/i

/** The tables that become sharded: those created with a *MergeTree engine, from statements with `{db}` rendered. */
export function shardedTables(statements: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const s of statements) {
    const m = CREATE_TABLE.exec(s)
    if (m && MERGE_TREE_ENGINE.test(s)) out.add(m[2]!)
  }
  return out
}

/** One single-server statement (its `{db}` rendered) as what runs on the cluster, in order. */
export function clusterSteps(statement: string, target: ClusterTarget): ClusterStep[] {
  const cluster = assertIdentifier(target.cluster)
  const db = assertIdentifier(target.database)
  const onCluster = `ON CLUSTER ${cluster}`
  const s = statement.trim()
  let m: RegExpExecArray | null
  if ((m = CREATE_TABLE.exec(s))) {
    const table = m[2]!
    if (!target.sharded.has(table))
      throw new ClusterRewriteError(`CREATE TABLE ${table}: only *MergeTree tables can be made replicated (H44)`)
    return replicatedTable(s, db, table, onCluster, cluster)
  }
  if ((m = CREATE_VIEW.exec(s)))
    return [{ kind: 'ddl', sql: s.replace(CREATE_VIEW, `CREATE VIEW IF NOT EXISTS $1.$2 ${onCluster}$3`) }]
  if ((m = CREATE_MV.exec(s))) {
    const head = s.replace(CREATE_MV, `CREATE MATERIALIZED VIEW IF NOT EXISTS $1.$2 ${onCluster}$3`)
    return [{ kind: 'ddl', sql: toLocalNames(head, db, target.sharded, m[2]!) }]
  }
  if ((m = DROP_TABLE.exec(s))) {
    const table = m[2]!
    const names = target.sharded.has(table) ? [table, table + LOCAL_SUFFIX] : [table]
    return names.map((name) => ({ kind: 'ddl' as const, sql: `DROP TABLE IF EXISTS ${db}.${name} ${onCluster}` }))
  }
  if ((m = ADD_COLUMN.exec(s))) {
    const [table, change] = [m[2]!, m[3]!]
    if (!target.sharded.has(table)) return [{ kind: 'ddl', sql: `ALTER TABLE ${db}.${table} ${onCluster} ${change}` }]
    // The replicated local table takes the ALTER; the Distributed table, which holds no rows (inserts are
    // synchronous, H45), is made again over the new columns: ClickHouse refuses ALTER ... ON CLUSTER of a
    // table that is not replicated on a cluster whose shards are (18.16: code 371).
    return [
      { kind: 'ddl', sql: `ALTER TABLE ${db}.${table}${LOCAL_SUFFIX} ${onCluster} ${change}` },
      { kind: 'ddl', sql: `DROP TABLE IF EXISTS ${db}.${table} ${onCluster}` },
      distributedTable(db, table, onCluster, cluster),
    ]
  }
  if ((m = INSERT_SELECT.exec(s))) {
    return [
      {
        kind: 'require-empty',
        sql: `SELECT count() AS n FROM (${m[3]!})`,
        reason:
          `the backfill into ${m[2]} would copy rows, which the runner cannot write shard by shard; ` +
          'build the cluster database by replay (docs/design.md A1, H44)',
      },
    ]
  }
  throw new ClusterRewriteError(`no cluster form for this statement (H44): ${s.slice(0, 80)}`)
}

function replicatedTable(s: string, db: string, table: string, onCluster: string, cluster: string): ClusterStep[] {
  const local = table + LOCAL_SUFFIX
  const engine = MERGE_TREE_ENGINE.exec(s)!
  const args = [`'/clickhouse/tables/{shard}/${db}/${local}'`, `'{replica}'`]
  if (engine[2]!.trim()) args.push(engine[2]!.trim())
  const localSql = s
    .replace(CREATE_TABLE, `CREATE TABLE IF NOT EXISTS ${db}.${local} ${onCluster}\n(`)
    .replace(MERGE_TREE_ENGINE, `ENGINE = Replicated${engine[1]}MergeTree(${args.join(', ')})`)
  return [{ kind: 'ddl', sql: localSql }, distributedTable(db, table, onCluster, cluster)]
}

/** The Distributed table X over X_local, sharded by X's key if it has one. */
function distributedTable(db: string, table: string, onCluster: string, cluster: string): ClusterStep {
  const local = table + LOCAL_SUFFIX
  const key = SHARDING_KEYS[table]
  const distributedArgs = [cluster, db, local, ...(key ? [key] : [])].join(', ')
  return {
    kind: 'ddl',
    sql: `CREATE TABLE IF NOT EXISTS ${db}.${table} ${onCluster} AS ${db}.${local}\nENGINE = Distributed(${distributedArgs})`,
  }
}

/** `db.X` becomes `db.X_local` for every sharded X, except the view's own name. */
function toLocalNames(s: string, db: string, sharded: ReadonlySet<string>, self: string): string {
  return s.replace(new RegExp(`\\b${db}\\.(\\w+)\\b`, 'g'), (whole, name: string) =>
    name !== self && sharded.has(name) ? `${db}.${name}${LOCAL_SUFFIX}` : whole,
  )
}
