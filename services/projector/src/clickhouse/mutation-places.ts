// Where a mutation (`ALTER TABLE ... DELETE`) is written and where what it left is read: the one server the
// projector talks to, or every server of a cluster (docs/design.md H61). On a cluster the tables found in
// system.tables are the servers' X_local tables (Replicated*MergeTree, one per shard and replica, H44): a
// delete goes ON CLUSTER (every shard; each replicates it to its replicas), and counts and the wait for
// mutations read every server through `remote()` over all their addresses (each address its own shard in
// `remote()`, so every replica is read; 18.16 has no clusterAllReplicas, and a Distributed table reads one
// replica per shard). Used by the erasure purge (A12) and the per-account retention (H60).
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'

/** A cluster of the servers' <remote_servers>, and the credentials `remote()` reads the other servers with. */
export interface ClusterAccess {
  name: string
  user: string
  password: string
}

export interface MutationPlaces {
  /** `ALTER TABLE db.table` (ON CLUSTER on a cluster), to be followed by `DELETE WHERE ...`. */
  alter(table: string): SqlRaw
  /** A FROM clause reading `db.table` on every server that holds a copy. */
  read(db: string, table: string): SqlRaw
}

/** The places for `database`, on one server or (`cluster` given) on every server of the cluster. */
export async function mutationPlaces(
  ch: ClickHouseClient,
  database: string,
  cluster: ClusterAccess | undefined,
): Promise<MutationPlaces> {
  if (cluster === undefined)
    return {
      alter: (table) => raw(sql`ALTER TABLE ${ident(database, table)}`),
      read: (db, table) => raw(sql`${ident(db, table)}`),
    }
  const servers = await (
    await ch.query({
      query: sql`SELECT concat(host_address, ':', toString(port)) AS address FROM system.clusters WHERE cluster = ${cluster.name}`,
      format: 'JSONEachRow',
    })
  ).json<{ address: string }>()
  if (servers.length === 0) throw new Error(`no server of cluster ${cluster.name} in system.clusters`)
  const addresses = servers.map((s) => s.address).join(',')
  return {
    alter: (table) => raw(sql`ALTER TABLE ${ident(database, table)} ON CLUSTER ${ident(cluster.name)}`),
    read: (db, table) =>
      raw(sql`remote(${addresses}, ${ident(db)}, ${ident(table)}, ${cluster.user}, ${cluster.password})`),
  }
}

/** Whether a mutation of `database` is unfinished on any of the places' servers. */
export async function mutating(ch: ClickHouseClient, places: MutationPlaces, database: string): Promise<boolean> {
  const [row] = await (
    await ch.query({
      query: sql`SELECT count() AS n FROM ${places.read('system', 'mutations')} WHERE database = ${database} AND is_done = 0`,
      format: 'JSONEachRow',
    })
  ).json<{ n: string }>()
  return Number(row?.n ?? 0) > 0
}
