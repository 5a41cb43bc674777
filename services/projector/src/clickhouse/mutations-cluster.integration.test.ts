// The erasure purge (A12) on a cluster (docs/design.md H61), on the
// cluster profile's ClickHouse (four 18.16 servers, two shards of two replicas;
// test/support/clickhouse-cluster.ts starts them if needed). Both talk to ch-1 as the projector does; a
// person's rows live on one shard (sharding by account and user), which for some people is the other shard.
// Every replica of every shard must hold none of the person's rows afterwards, while every other row stays.
// The rows are all in one month, which the live traffic also writes to: a replicated table does not mutate
// the last part each partition took with insert_quorum until another insert reaches that partition (H61).
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { purgePeople } from '../privacy/purge.js'
import { ClickHouseWriter } from './writer.js'
import { makeEvent, makeIdentify, queryRows, type TeardownHost } from '../../../../test/support/clickhouse-helpers.js'
import {
  CLUSTER,
  NODES,
  createClusterDatabase,
  ensureCluster,
  holdCluster,
  nodeClient,
} from '../../../../test/support/clickhouse-cluster.js'

await holdCluster(t, 'shared')
await ensureCluster()
const { client, database } = await createClusterDatabase(t, 'purge')
const nodes = NODES.map((n) => nodeClient(n))
t.teardown(() => Promise.all(nodes.map((c) => c.close())))

const ACCOUNT = 'acc_purge'
const USERS = Array.from({ length: 24 }, (_, i) => `user-${i}`)
const writer = new ClickHouseWriter(client, database, { clustered: true })
await writer.write({
  events: USERS.flatMap((u) =>
    Array.from({ length: 5 }, (_, k) =>
      makeEvent({ event_id: `${u}-e${k}`, account_id: ACCOUNT, user_id: u, user_traits: '{"plan":"pro"}' }),
    ),
  ),
  identifies: USERS.map((u) => makeIdentify({ event_id: `${u}-i`, account_id: ACCOUNT, user_id: u })),
})

/** The person tables' local names, as the purge finds them (X_local on a cluster). */
const LOCAL_TABLES = ['events_local', 'identifies_local', 'user_traits_local', 'users_local']

/** Rows of `user` per node, over every local table. */
async function rowsPerNode(user: string): Promise<number[]> {
  const out: number[] = []
  for (const c of nodes) {
    let n = 0
    for (const table of LOCAL_TABLES) {
      const [row] = await queryRows<{ n: string }>(
        c,
        `SELECT count() AS n FROM ${database}.${table} WHERE account_id = '${ACCOUNT}' AND user_id = '${user}'`,
      )
      n += Number(row!.n)
    }
    out.push(n)
  }
  return out
}

// Replicas take the rows with the quorum insert (H45); the materialized tables (users, user_traits) follow
// on each replica. Each person's rows sit on the two replicas of one shard.
for (const c of nodes)
  for (const table of LOCAL_TABLES) await c.command({ query: `SYSTEM SYNC REPLICA ${database}.${table}` })
const placed = await Promise.all(USERS.map(async (u) => ({ user: u, rows: await rowsPerNode(u) })))
// ch-1 and ch-2 are shard 1, ch-3 and ch-4 shard 2 (deploy/local/cluster/).
const onShard2 = placed.find((p) => p.rows[0] === 0 && p.rows[2]! > 0)
const onShard1 = placed.find((p) => p.rows[0]! > 0 && p.rows[2] === 0)

t.test('a person whose rows are on the shard the purge is not connected to is purged from every replica', async (t) => {
  t.ok(onShard2, 'someone lives on shard 2 only')
  t.ok(onShard1, 'someone lives on shard 1 only')
  const before = await totalRows(ACCOUNT)
  const traffic = liveTraffic(t)
  for (const p of [onShard2!, onShard1!]) {
    const result = await purgePeople(client, database, [{ account_id: ACCOUNT, user_id: p.user }], {
      cluster: { name: CLUSTER, user: 'default', password: '' },
      pollMs: 200,
      // Inside the file's time: a mutation that never ends fails the test naming it (H85), not by a timeout.
      mutationWaitMs: 100_000,
    })
    // Five events of the person, each on both replicas of its shard: counted on every server.
    t.equal(result.found.events_local, 10, `the purge counted ${p.user}'s events on both replicas of their shard`)
    t.same(await rowsPerNode(p.user), [0, 0, 0, 0], `no replica holds a row of ${p.user}`)
  }
  t.comment(`${await traffic.stop()} live batches of another account arrived while the purges waited`)
  // Five events and one identify of each purged person, on two replicas each.
  const purgedRows = 2 * 2 * (5 + 1)
  t.equal(
    await totalRows(ACCOUNT),
    before - purgedRows,
    "everyone else's rows of the account are still on their replicas",
  )
  const [viaDistributed] = await queryRows<{ n: string }>(
    client,
    `SELECT count() AS n FROM ${database}.events WHERE account_id = '${ACCOUNT}' AND user_id IN ('${onShard2!.user}', '${onShard1!.user}')`,
  )
  t.equal(Number(viaDistributed!.n), 0, 'no query through the Distributed tables returns them')
})

/** Rows of the account in the tables whose rows merges never collapse (one row per event id). */
async function totalRows(account = ACCOUNT): Promise<number> {
  let n = 0
  for (const c of nodes)
    for (const table of ['events_local', 'identifies_local']) {
      const [row] = await queryRows<{ n: string }>(
        c,
        `SELECT count() AS n FROM ${database}.${table} WHERE account_id = '${account}'`,
      )
      n += Number(row!.n)
    }
  return n
}

/**
 * A replicated table does not mutate the last part written to it with insert_quorum (the writer's H45
 * insert) until a later insert arrives: the live projector's next batch. As a live projector would,
 * another account's events and identifies keep arriving (every shard) until stopped.
 */
function liveTraffic(t: TeardownHost) {
  let live = true
  let batches = 0
  const running = (async () => {
    while (live) {
      batches++
      const tag = `live-${randomBytes(4).toString('hex')}`
      await writer.write({
        events: USERS.map((u) =>
          makeEvent({ event_id: `${tag}-${u}`, account_id: 'acc_other', user_id: u, user_traits: '{"a":1}' }),
        ),
        identifies: USERS.map((u) => makeIdentify({ event_id: `${tag}-${u}-i`, account_id: 'acc_other', user_id: u })),
      })
      await new Promise((r) => setTimeout(r, 2000))
    }
  })()
  const stop = async () => {
    live = false
    await running
    return batches
  }
  t.teardown(stop)
  return { stop }
}
