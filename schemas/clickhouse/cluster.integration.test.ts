// The migrations in cluster mode (cluster.ts, docs/design.md H44) on the cluster profile's ClickHouse:
// four 18.16 servers, two shards of two replicas, ZooKeeper (test/support/clickhouse-cluster.ts starts
// them when they are not running).
import t from 'tap'
import { migrate } from './migrate.js'
import {
  CLUSTER,
  NODES,
  createClusterDatabase,
  ensureCluster,
  holdCluster,
  nodeClient,
  type Node,
} from '../../test/support/clickhouse-cluster.js'
import { queryRows } from '../../test/support/clickhouse-helpers.js'

await holdCluster(t, 'shared') // before ensureCluster: a file that kills a server restarts it before it lets go
await ensureCluster()
const { client, database } = await createClusterDatabase(t, 'chcluster')
const clients = new Map(NODES.map((n) => [n, nodeClient(n)] as const))
t.teardown(() => Promise.all([...clients.values()].map((c) => c.close())))

const count = async (n: Node, from: string) =>
  Number((await queryRows<{ n: string }>(clients.get(n)!, `SELECT count() AS n FROM ${database}.${from}`))[0]!.n)

const rows = (ids: number[]) =>
  ids
    .map(
      (i) =>
        `ev-${i}\tacc_1\tlive\tkey_1\tpage_viewed\tuser-${i % 37}\t2024-05-15 12:00:00\t1715774400000\t0\t2024-05-15 12:00:01\t1715774401000\t0\t0\t{}\t{}\t\t\t\t\t{}\n`,
    )
    .join('')
const COLUMNS =
  'event_id, account_id, environment, key_id, event, user_id, timestamp, timestamp_ms, original_timestamp_ms, received_at, received_at_ms, sent_at_ms, timestamp_flagged, properties, context, ip, user_agent, message_id, user_email, user_traits'
const insert = (ids: number[]) =>
  client.command({
    query: `INSERT INTO ${database}.events (${COLUMNS}) FORMAT TabSeparated\n${rows(ids)}`,
    clickhouse_settings: { insert_distributed_sync: 1, insert_quorum: '2' },
  })

t.test('one run through ch-1 creates the replicated and Distributed tables on all four servers', async (t) => {
  for (const n of NODES) {
    const tables = (
      await queryRows<{ name: string }>(
        clients.get(n)!,
        `SELECT name FROM system.tables WHERE database = '${database}'`,
      )
    ).map((r) => r.name)
    for (const name of [
      'events',
      'events_local',
      'identifies_local',
      'user_traits_local',
      'users_local',
      'usage_monthly_local',
      'usage_monthly_sharded_local',
      'retry_ids_local',
      'events_dedup',
      'users_view',
      'usage_monthly_sharded_mv',
    ]) {
      t.ok(tables.includes(name), `ch-${n} has ${name}`)
    }
    const [r] = await queryRows<{ engine: string }>(
      clients.get(n)!,
      `SELECT engine FROM system.tables WHERE database = '${database}' AND name = 'events_local'`,
    )
    t.equal(r!.engine, 'ReplicatedReplacingMergeTree', `ch-${n} events_local`)
  }
  const again = await migrate(client, database, { cluster: CLUSTER })
  t.equal(again.applied.length, 0, 'a second run applies nothing')
})

t.test(
  'rows inserted through the Distributed table spread over the shards, on both replicas, and replays collapse',
  async (t) => {
    const ids = Array.from({ length: 200 }, (_, i) => i)
    await insert(ids)
    const [s1, s1r, s2, s2r] = await Promise.all([
      count(1, 'events_local'),
      count(2, 'events_local'),
      count(3, 'events_local'),
      count(4, 'events_local'),
    ])
    t.ok(s1 > 0 && s2 > 0, `both shards have rows (${s1}, ${s2})`)
    t.equal(s1 + s2, 200)
    t.equal(s1r, s1, 'the quorum insert returned after shard 1 replica 2 had the rows')
    t.equal(s2r, s2, 'and shard 2 replica 2')
    await insert(ids.slice(0, 50)) // a replay of 50
    t.equal(await count(3, 'events_dedup'), 200, 'FINAL through any server: 200')
    const [usage] = await queryRows<{ events: string }>(client, `SELECT events FROM ${database}.usage_monthly_view`)
    t.equal(Number(usage!.events), 200, 'usage counts each event once (materialized view on the local tables)')
    const [users] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.users_view`)
    t.equal(Number(users!.n), 37)
    t.equal(await count(2, 'retry_ids'), 0, 'no message_id, no retry id')
  },
)
