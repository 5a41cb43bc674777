// A query test on both ClickHouse versions (docs/design.md A10, U22): a fresh database on the stack's
// current server, then one on the cluster profile's 18.16 (two shards of two replicas, started when
// down, left running as the other cluster tests leave it). The body gets the database and whether it
// is the cluster's, where a table without a sharding key is written through its local table.
import type { Test } from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import { createTestDatabase } from './clickhouse-helpers.js'
import { createClusterDatabase, ensureCluster, holdCluster } from './clickhouse-cluster.js'

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
  await t.test('ClickHouse 18.16, the cluster profile', async (t) => {
    await holdCluster(t, 'shared') // before ensureCluster: a file that kills a server restarts it first
    await ensureCluster()
    const { client, database } = await createClusterDatabase(t, prefix)
    await body(t, { client, database, cluster: true })
  })
}
