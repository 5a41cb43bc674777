// A query test on both ClickHouse versions (docs/design.md A10, U22): a fresh database on the stack's
// current server, then one of local tables on one 18.16 server of the cluster profile (started when
// down, left running as the other cluster tests leave it), and (with CLICKHOUSE_1816_QUERY_TESTS=1) one
// migrated ON CLUSTER across its two shards of two replicas. The body gets the database and whether it
// is the cluster's, where a table without a sharding key is written through its local table.
import type { Test } from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import { createTestDatabase } from './clickhouse-helpers.js'
import { createClusterDatabase, ensureCluster, holdCluster, nodeClient } from './clickhouse-cluster.js'
import { migrate } from '../../schemas/clickhouse/migrate.js'
import { randomBytes } from 'node:crypto'

export interface VersionedDatabase {
  client: ClickHouseClient
  database: string
  cluster: boolean
}

export async function onBothVersions(
  t: Test,
  prefix: string,
  body: (t: Test, db: VersionedDatabase) => Promise<void>,
): Promise<void> {
  await t.test('current ClickHouse, one server', async (t) => {
    const { client, database } = await createTestDatabase({ prefix, t })
    await body(t, { client, database, cluster: false })
  })
  // 18.16's functions and SQL on local tables: what a query may use is the server's, not the cluster's, and
  // local DDL involves no ZooKeeper, so this leg runs in `npm test` (U22).
  await t.test('ClickHouse 18.16, one server', async (t) => {
    await holdCluster(t, 'shared')
    await ensureCluster()
    const client = nodeClient(1)
    const database = `test_${prefix.replace(/[^A-Za-z0-9_]/g, '_')}_${randomBytes(6).toString('hex')}`
    t.teardown(async () => {
      try {
        await client.command({ query: `DROP DATABASE IF EXISTS ${database}` })
      } finally {
        await client.close()
      }
    })
    await migrate(client, database)
    await body(t, { client, database, cluster: false })
  })
  // Off in `npm test` (docs/design.md U22): three more files migrating databases ON CLUSTER made an 18.16
  // server crash in CI (its DDLWorker's "Node exists" race on a replicated ALTER) and took the other cluster
  // tests down with it. CLICKHOUSE_1816_QUERY_TESTS=1 runs this leg.
  const on1816 = process.env.CLICKHOUSE_1816_QUERY_TESTS === '1'
  const skip = on1816 ? false : 'the 18.16 leg runs with CLICKHOUSE_1816_QUERY_TESTS=1 (U22)'
  await t.test('ClickHouse 18.16, the cluster profile', { skip }, async (t) => {
    await holdCluster(t, 'shared') // before ensureCluster: a file that kills a server restarts it first
    await ensureCluster()
    const { client, database } = await createClusterDatabase(t, prefix)
    await body(t, { client, database, cluster: true })
  })
}
