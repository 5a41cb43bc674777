// What of the cluster mode (docs/design.md A10, H44, H45) can be checked on the current ClickHouse (26.9,
// chdb-core, A7), which cannot replicate (docs/scaling.md): a single 26.9 server with <zookeeper> (the
// cluster profile's), <macros> and a one-server `tracking` in its config creates every table, view and
// materialized view the runner emits for a cluster, as emitted but for ON CLUSTER (LocalServer refuses
// distributed DDL, code 392), and knows the insert settings the projector sends to a cluster.
import t from 'tap'
import { spawn } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@clickhouse/client'
import { clusterSteps, shardedTables } from '../../../../schemas/clickhouse/cluster.js'
import { loadMigrations, renderStatement } from '../../../../schemas/clickhouse/migrate.js'
import { CLUSTER_INSERT_SETTINGS } from './writer.js'
import { ensureCluster, holdCluster, zookeeperPort } from '../../../../test/support/clickhouse-cluster.js'
import { queryRows } from '../../../../test/support/clickhouse-helpers.js'
import { freePort, tempDir } from '../../../../test/support/ports.js'

const root = join(import.meta.dirname, '..', '..', '..', '..')
const installs = process.env.STACK_DIR ?? join(root, '.stack')

await holdCluster(t, 'shared') // before ensureCluster: a file that kills a server restarts it before it lets go
await ensureCluster() // for its ZooKeeper
const dir = tempDir(t, 'chcur-replicated-')
const [http, tcp] = [await freePort(), await freePort()]
const extra = `
    <zookeeper><node><host>127.0.0.1</host><port>${zookeeperPort()}</port></node></zookeeper>
    <macros><shard>01</shard><replica>current-${http}</replica></macros>
    <remote_servers><tracking><shard><internal_replication>true</internal_replication>
        <replica><host>127.0.0.1</host><port>${tcp}</port></replica></shard></tracking></remote_servers>
</clickhouse>`
const config = readFileSync(join(root, 'deploy', 'local', 'chdb', 'config.xml'), 'utf8')
  .replaceAll('@STACK_DIR@', dir)
  .replaceAll('@CLICKHOUSE_HTTP_PORT@', String(http))
  .replaceAll('@CLICKHOUSE_TCP_PORT@', String(tcp))
  .replace('</clickhouse>', extra)
mkdirSync(join(dir, 'logs'))
writeFileSync(join(dir, 'config.xml'), config)
copyFileSync(join(root, 'deploy', 'local', 'clickhouse', 'users.xml'), join(dir, 'users.xml'))
cpSync(join(root, 'deploy', 'local', 'chdb', 'users.d'), join(dir, 'users.d'), { recursive: true })
const server = spawn(
  join(installs, 'chdb-venv', 'bin', 'python'),
  [join(root, 'deploy', 'local', 'chdb', 'server.py'), dir, join(dir, 'data')],
  { stdio: 'ignore' },
)
t.teardown(
  () =>
    new Promise((r) => {
      server.once('exit', r)
      server.kill('SIGTERM')
    }),
)
const url = `http://127.0.0.1:${http}`
for (let i = 0; ; i++) {
  const ok = await fetch(`${url}/ping`).then(
    (r) => r.ok,
    () => false,
  )
  if (ok) break
  if (i > 240 || server.exitCode !== null)
    throw new Error(`the 26.9 server did not answer on ${url} (exit ${server.exitCode})`)
  await new Promise((r) => setTimeout(r, 500))
}
const client = createClient({ url, username: 'default', password: '', request_timeout: 60_000 })
t.teardown(() => client.close())
const version = (await queryRows<{ v: string }>(client, 'SELECT version() AS v'))[0]!.v

t.test(`the runner's cluster DDL, without ON CLUSTER, creates every object on ${version}`, async (t) => {
  const database = `test_chcur_${http}`
  await client.command({ query: `CREATE DATABASE ${database}` })
  const statements = (await loadMigrations()).flatMap((m) => m.statements.map((s) => renderStatement(s, database)))
  const target = { cluster: 'tracking', database, sharded: shardedTables(statements) }
  // A replica that cannot reach its peers is read-only (no interserver listener here, A10), so from the first
  // ALTER of a replicated table on (008's), 26.9 only parses what follows; 18.16's cluster runs all of it
  // (cluster.integration.test.ts).
  let parseOnly = false
  for (const step of statements.flatMap((s) => clusterSteps(s, target))) {
    const sql = step.sql.replace(' ON CLUSTER tracking', '')
    if (step.kind === 'ddl' && /^ALTER TABLE \S+_local /.test(sql)) parseOnly = true
    if (parseOnly)
      t.match(
        await (await client.query({ query: `EXPLAIN AST ${sql}`, format: 'TabSeparatedRaw' })).text(),
        /Query/,
        `26.9 parses: ${sql.slice(0, 60)}`,
      )
    else if (step.kind === 'ddl') await client.command({ query: sql })
    else t.same(await queryRows(client, step.sql), [{ n: '0' }], 'a backfill check runs (nothing to copy)')
  }
  t.ok(parseOnly, 'the migrations reach an ALTER of a replicated table')
  const engines = Object.fromEntries(
    (
      await queryRows<{ name: string; engine: string }>(
        client,
        `SELECT name, engine FROM system.tables WHERE database = '${database}'`,
      )
    ).map((r) => [r.name, r.engine]),
  )
  t.equal(engines.events_local, 'ReplicatedReplacingMergeTree')
  t.equal(engines.users_local, 'ReplicatedAggregatingMergeTree')
  t.equal(engines.events, 'Distributed')
  t.equal(engines.usage_monthly_mv, 'MaterializedView')
  t.equal(engines.events_dedup, 'View')
  t.equal(Object.keys(engines).length, 22, 'up to 007: six tables twice, five views, five materialized views')
  const [zk] = await queryRows<{ path: string }>(
    client,
    `SELECT zookeeper_path AS path FROM system.replicas WHERE database = '${database}' AND table = 'events_local'`,
  )
  t.equal(zk!.path, `/clickhouse/tables/01/${database}/events_local`, 'the {shard} macro came from the config')
  t.same(
    await queryRows(client, `SELECT count() AS n FROM ${database}.events_dedup`),
    [{ n: '0' }],
    'reads through the Distributed table and view answer',
  )
  await client.command({ query: `DROP DATABASE ${database} SYNC` })
})

t.test(`${version} knows the projector's cluster insert settings (an unknown one is an error)`, async (t) => {
  t.same(await queryRows(client, 'SELECT 1 AS one'), [{ one: 1 }])
  const r = await client.query({
    query: 'SELECT 1 AS one',
    format: 'JSONEachRow',
    clickhouse_settings: CLUSTER_INSERT_SETTINGS,
  })
  t.same(await r.json(), [{ one: 1 }])
  await t.rejects(
    client.query({ query: 'SELECT 1', clickhouse_settings: { insert_quorum_no_such_setting: 1 } as never }),
    /Unknown setting|UNKNOWN_SETTING/,
  )
})
