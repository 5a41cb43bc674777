// The projector's inserts on a cluster (docs/design.md H45), on the cluster profile's ClickHouse (four
// 18.16 servers, two shards of two replicas; test/support/clickhouse-cluster.ts starts them if needed):
// with one replica of a shard down, a write fails (retriable) instead of returning, so the projector,
// which commits a batch's offsets only after its write returns, commits nothing; once the replica is
// back, the retried write lands and every record is stored exactly once.
import t from 'tap'
import { ClickHouseWriter, ClickHouseWriteError } from './writer.js'
import { makeEvent, queryRows } from '../../../../test/support/clickhouse-helpers.js'
import {
  clusterUp,
  createClusterDatabase,
  ensureCluster,
  holdCluster,
  killNode,
  nodeClient,
} from '../../../../test/support/clickhouse-cluster.js'

await holdCluster(t, 'exclusive') // before ensureCluster: a file that kills a server restarts it before it lets go
await ensureCluster()
const { client, database } = await createClusterDatabase(t, 'chwriter')
const writer = new ClickHouseWriter(client, database, { clustered: true })
const replica2 = nodeClient(2)
t.teardown(() => replica2.close())

const batch = (prefix: string, n: number) => ({
  events: Array.from({ length: n }, (_, i) => makeEvent({ event_id: `${prefix}-${i}`, user_id: `u-${i % 20}` })),
  identifies: [],
})
const stored = async (c = client) =>
  (
    await queryRows<{ n: string; d: string }>(
      c,
      `SELECT count() AS n, uniqExact(event_id) AS d FROM ${database}.events FINAL`,
    )
  ).map((r) => [Number(r.n), Number(r.d)])[0]

t.test('with every replica up, a write returns once both replicas of each shard have the rows', async (t) => {
  await writer.write(batch('a', 60))
  t.same(await stored(), [60, 60])
  const [local] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.events_local`)
  const [copy] = await queryRows<{ n: string }>(replica2, `SELECT count() AS n FROM ${database}.events_local`)
  t.ok(Number(local!.n) > 0, 'shard 1 took some of the rows')
  t.equal(Number(copy!.n), Number(local!.n), "shard 1's second replica already has them (quorum 2)")
})

t.test(
  'with one replica of a shard SIGKILLed the write fails, retriable; after its restart the retry lands once',
  async (t) => {
    const b = batch('b', 100)
    await killNode(2)
    const err = await writer.write(b).then(
      () => undefined,
      (e: unknown) => e,
    )
    t.type(err, ClickHouseWriteError, 'the write did not return')
    t.equal((err as ClickHouseWriteError).code, 'INSERT_FAILED')
    t.equal((err as ClickHouseWriteError).retriable, true, 'the projector retries it, offsets uncommitted')
    t.comment(`with ch-2 down: ${(err as Error).message.slice(0, 200)}`)
    await clusterUp()
    // As the projector's retry loop does: the same batch again until ClickHouse takes it.
    let attempts = 0
    for (;;) {
      attempts++
      try {
        await writer.write(b)
        break
      } catch (e) {
        if (!(e instanceof ClickHouseWriteError) || !e.retriable || attempts >= 30) throw e
        await new Promise((r) => setTimeout(r, 2000))
      }
    }
    t.comment(`written on attempt ${attempts} after the restart`)
    t.same(await stored(), [160, 160], 'every record once through the Distributed table (FINAL)')
    await replica2.command({ query: `SYSTEM SYNC REPLICA ${database}.events_local` })
    const [l1] = await queryRows<{ n: string }>(client, `SELECT uniqExact(event_id) AS n FROM ${database}.events_local`)
    const [l2] = await queryRows<{ n: string }>(
      replica2,
      `SELECT uniqExact(event_id) AS n FROM ${database}.events_local`,
    )
    t.equal(Number(l2!.n), Number(l1!.n), 'the restarted replica caught up')
  },
)
