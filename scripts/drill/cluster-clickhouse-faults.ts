// The cluster drill's ClickHouse faults (docs/design.md A10, H45; docs/scaling.md): the cluster profile
// runs ZooKeeper and four ClickHouse servers, two shards (clickhouse-1 + -2, -3 + -4) of two replicas,
// and the projector writes through clickhouse-1's Distributed tables with a quorum of two. Each fault
// SIGKILLs what it names, leaves it down, and starts it again (cluster.sh `up` starts what is down).
import { createClient } from '@clickhouse/client'
import type { ClusterComponent, ClusterStack } from './cluster-stack.js'
import type { ClusterPart } from './cluster-options.js'
import type { FaultWindow } from './report.js'

export interface ClickHouseFault {
  part: ClusterPart
  title: (downSeconds: number) => string
  kill: ClusterComponent[]
  /** After the recovery: the shard whose replicas must hold the same rows (the restarted one caught up). */
  compareReplicas?: [1 | 2 | 3 | 4, 1 | 2 | 3 | 4]
}

export const CLICKHOUSE_FAULTS: ClickHouseFault[] = [
  {
    part: 'replica-kill',
    title: (s) => `SIGKILL clickhouse-2 (shard 1, replica 2 of 2), restarted after ${s} s`,
    kill: ['clickhouse-2'],
    compareReplicas: [1, 2],
  },
  {
    part: 'zookeeper-kill',
    title: (s) => `SIGKILL ZooKeeper (ClickHouse's coordination), restarted after ${s} s`,
    kill: ['zookeeper'],
  },
  {
    part: 'shard-down',
    title: (s) => `SIGKILL clickhouse-3 and -4 (all of shard 2), restarted after ${s} s`,
    kill: ['clickhouse-3', 'clickhouse-4'],
    compareReplicas: [3, 4],
  },
]

/**
 * Rows of the run's database on each replica of a shard, after SYNC REPLICA (it waits until the replica
 * has fetched what its queue names): equal counts mean the restarted replica caught up.
 */
export async function compareReplicas(
  stack: ClusterStack,
  database: string,
  nodes: [number, number],
  w: FaultWindow,
): Promise<void> {
  const counts: number[] = []
  for (const n of nodes) {
    const ch = createClient({ url: stack.clickhouseUrl(n), request_timeout: 300_000 })
    try {
      await ch.command({ query: `SYSTEM SYNC REPLICA ${database}.events_local` })
      const r = await (
        await ch.query({
          query: `SELECT uniqExact(event_id) AS n FROM ${database}.events_local`,
          format: 'JSONEachRow',
        })
      ).json<{ n: string }>()
      counts.push(Number(r[0]?.n ?? 0))
    } finally {
      await ch.close()
    }
  }
  const text = `clickhouse-${nodes[0]} and -${nodes[1]} hold ${counts[0]} and ${counts[1]} distinct events after SYNC REPLICA`
  if (counts[0] === counts[1]) w.notes.push(`${text}: the restarted replica caught up`)
  else w.problems.push(`${text}: the replicas differ`)
}
