// Where a mutation (`ALTER TABLE ... DELETE`) is written and where what it left is read: the one server the
// projector talks to, or every server of a cluster (docs/design.md H61). On a cluster the tables found in
// system.tables are the servers' X_local tables (Replicated*MergeTree, one per shard and replica, H44): a
// delete goes ON CLUSTER (every shard; each replicates it to its replicas), and counts and the wait for
// mutations read every server through `remote()` over all their addresses (each address its own shard in
// `remote()`, so every replica is read; 18.16 has no clusterAllReplicas, and a Distributed table reads one
// replica per shard). Used by the erasure purge (A12) and the per-account retention (H60).
import type { ClickHouseClient } from '@clickhouse/client'
import { setTimeout as sleep } from 'node:timers/promises'
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import { AppError } from '../../../shared/src/errors.js'

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

/** The places for `database` on the one server the client talks to. */
export function oneServer(database: string): MutationPlaces {
  return {
    alter: (table) => raw(sql`ALTER TABLE ${ident(database, table)}`),
    read: (db, table) => raw(sql`${ident(db, table)}`),
  }
}

/** The places for `database`, on one server or (`cluster` given) on every server of the cluster. */
export async function mutationPlaces(
  ch: ClickHouseClient,
  database: string,
  cluster: ClusterAccess | undefined,
): Promise<MutationPlaces> {
  if (cluster === undefined) return oneServer(database)
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

/** A mutation of the database not done yet, as system.mutations shows it (18.16 has no fail reason). */
export interface PendingMutation {
  table: string
  mutation_id: string
  command: string
  parts_to_do: number
  /** Why its last attempt failed (current ClickHouse); a mutation that fails on every attempt never ends. */
  latest_fail_reason?: string
}

/**
 * Mutations still pending when the wait ended. ClickHouse applies a table's mutations in order, so one that
 * cannot finish (its expression throws on some row, say) holds every later one of the table for ever; the
 * error names it for the operator, who ends it with `KILL MUTATION` (docs/privacy.md).
 */
export class MutationsNotDoneError extends AppError {
  readonly code = 'MUTATIONS_NOT_DONE'
  constructor(
    readonly database: string,
    readonly pending: PendingMutation[],
    readonly waitedMs: number,
  ) {
    super(
      `${pending.length} mutation(s) of ${database} still not done after ${waitedMs} ms: ${pending.map(describe).join('; ')}`,
      { retriable: true },
    )
  }
}

function describe(m: PendingMutation): string {
  const reason = m.latest_fail_reason ? `, last failure: ${m.latest_fail_reason.slice(0, 300)}` : ''
  return `${m.table} ${m.mutation_id} (${m.command.slice(0, 120)}; ${m.parts_to_do} part(s) to do${reason})`
}

/** MUTATION_WAIT_MS's default: an erasure purge over one account's 10 million events took about 3 minutes
 *  (BENCHMARKS.md, "An erasure at scale"). */
export const MUTATION_WAIT_MS_DEFAULT = 600_000

export interface MutationWait {
  /** The longest the wait lasts before it throws MutationsNotDoneError (MUTATION_WAIT_MS; its default
   *  without it). */
  timeoutMs?: number
  pollMs: number
  /** Ends the wait early (a stopping service): it then rejects with the signal's reason. */
  signal?: AbortSignal
}

/** The mutations of `database` (of its tables `only`, when given) not done on any of the places' servers. */
export async function pendingMutations(
  ch: ClickHouseClient,
  places: MutationPlaces,
  database: string,
  only?: readonly string[],
): Promise<PendingMutation[]> {
  const tables =
    only === undefined
      ? raw('1')
      : only.length === 0
        ? raw('0')
        : raw(sql`table IN (${raw(only.map((t) => sql`${t}`).join(', '))})`)
  // `*`: 18.16's system.mutations has no latest_fail_reason, current ClickHouse's has.
  const rows = await (
    await ch.query({
      query: sql`SELECT * FROM ${places.read('system', 'mutations')} WHERE database = ${database} AND is_done = 0 AND ${tables}`,
      format: 'JSONEachRow',
    })
  ).json<Record<string, unknown>>()
  return rows.map((r) => ({
    table: String(r.table),
    mutation_id: String(r.mutation_id),
    command: String(r.command),
    parts_to_do: Number(r.parts_to_do),
    ...(r.latest_fail_reason ? { latest_fail_reason: String(r.latest_fail_reason) } : {}),
  }))
}

/**
 * Waits until no mutation of `database` (of its tables `only`, when given) is pending on any of the places'
 * servers (18.16 returns from an `ALTER ... DELETE` before it is applied), for at most `timeoutMs`: an
 * unbounded wait behind a mutation that never ends held an erasure, and the service's stop, for ever.
 */
export async function mutationsDone(
  ch: ClickHouseClient,
  places: MutationPlaces,
  database: string,
  wait: MutationWait,
  only?: readonly string[],
): Promise<void> {
  const timeoutMs = wait.timeoutMs ?? MUTATION_WAIT_MS_DEFAULT
  const t0 = Date.now()
  for (;;) {
    wait.signal?.throwIfAborted()
    const pending = await pendingMutations(ch, places, database, only)
    if (pending.length === 0) return
    const waited = Date.now() - t0
    if (waited >= timeoutMs) throw new MutationsNotDoneError(database, pending, waited)
    await sleep(Math.min(wait.pollMs, timeoutMs - waited), undefined, { signal: wait.signal })
  }
}
