// The migrations' cluster form (cluster.ts, docs/design.md H44), as text: the integration test
// (cluster.integration.test.ts) runs it on the cluster profile's servers.
import t from 'tap'
import { clusterSteps, shardedTables, ClusterRewriteError, type ClusterTarget } from './cluster.js'
import { loadMigrations, renderStatement } from './migrate.js'

const target: ClusterTarget = {
  cluster: 'tracking',
  database: 'db1',
  sharded: new Set(['events', 'users', 'retry_ids']),
}
const squash = (s: string) => s.replace(/\s+/g, ' ').trim()
const sqls = (statement: string) => clusterSteps(statement, target).map((s) => squash(s.sql))

t.test('a MergeTree table becomes a replicated local table and a Distributed table under its name', async (t) => {
  const out = sqls(`CREATE TABLE IF NOT EXISTS db1.events
(
    event_id String,
    account_id String,
    user_id String,
    received_at_ms Int64
)
ENGINE = ReplacingMergeTree(received_at_ms)
ORDER BY (account_id, event_id)`)
  t.same(out, [
    'CREATE TABLE IF NOT EXISTS db1.events_local ON CLUSTER tracking ( event_id String, account_id String, user_id String, received_at_ms Int64 ) ' +
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db1/events_local', '{replica}', received_at_ms) ORDER BY (account_id, event_id)",
    'CREATE TABLE IF NOT EXISTS db1.events ON CLUSTER tracking AS db1.events_local ENGINE = Distributed(tracking, db1, events_local, cityHash64(account_id, user_id))',
  ])
})

t.test(
  'a table written only by materialized views gets no sharding key, and empty engine arguments stay empty',
  async (t) => {
    const out = sqls(
      'CREATE TABLE IF NOT EXISTS db1.users\n(\n    user_id String\n)\nENGINE = AggregatingMergeTree()\nORDER BY user_id',
    )
    t.match(
      out[0],
      "ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/db1/users_local', '{replica}') ORDER BY user_id",
    )
    t.equal(
      out[1],
      'CREATE TABLE IF NOT EXISTS db1.users ON CLUSTER tracking AS db1.users_local ENGINE = Distributed(tracking, db1, users_local)',
    )
  },
)

t.test('a materialized view reads and writes the local tables; a plain view keeps the Distributed names', async (t) => {
  t.same(
    sqls(
      'CREATE MATERIALIZED VIEW IF NOT EXISTS db1.users_mv TO db1.users AS\nSELECT user_id FROM db1.events JOIN db1.other USING user_id',
    ),
    [
      'CREATE MATERIALIZED VIEW IF NOT EXISTS db1.users_mv ON CLUSTER tracking TO db1.users_local AS SELECT user_id FROM db1.events_local JOIN db1.other USING user_id',
    ],
  )
  t.same(sqls('CREATE VIEW IF NOT EXISTS db1.events_dedup AS\nSELECT * FROM db1.events FINAL'), [
    'CREATE VIEW IF NOT EXISTS db1.events_dedup ON CLUSTER tracking AS SELECT * FROM db1.events FINAL',
  ])
})

t.test('DROP runs on the cluster, for both tables of a sharded one', async (t) => {
  t.same(sqls('DROP TABLE IF EXISTS db1.users_mv'), ['DROP TABLE IF EXISTS db1.users_mv ON CLUSTER tracking'])
  t.same(sqls('DROP TABLE IF EXISTS db1.events'), [
    'DROP TABLE IF EXISTS db1.events ON CLUSTER tracking',
    'DROP TABLE IF EXISTS db1.events_local ON CLUSTER tracking',
  ])
})

t.test('a backfill runs only where it would copy nothing', async (t) => {
  const [step] = clusterSteps(
    "INSERT INTO db1.retry_ids\nSELECT account_id FROM db1.events\nWHERE message_id != ''",
    target,
  )
  t.equal(step!.kind, 'require-empty')
  t.equal(squash(step!.sql), "SELECT count() AS n FROM (SELECT account_id FROM db1.events WHERE message_id != '')")
})

t.test('a statement with no cluster form is refused, not run as it is', async (t) => {
  t.throws(() => clusterSteps('ALTER TABLE db1.events DROP COLUMN x', target), ClusterRewriteError)
  t.throws(
    () => clusterSteps('CREATE TABLE IF NOT EXISTS db1.kv (k String) ENGINE = Memory', target),
    ClusterRewriteError,
  )
  t.throws(
    () => clusterSteps('CREATE VIEW IF NOT EXISTS db1.v AS SELECT 1', { ...target, cluster: 'bad name' }),
    /invalid SQL identifier/,
  )
})

t.test('a column added to a sharded table: its local table altered, its Distributed table made again', async (t) => {
  const steps = clusterSteps('ALTER TABLE db1.events ADD COLUMN anonymous_id String', target)
  t.same(
    steps.map((x) => squash(x.sql)),
    [
      'ALTER TABLE db1.events_local ON CLUSTER tracking ADD COLUMN anonymous_id String',
      'DROP TABLE IF EXISTS db1.events ON CLUSTER tracking',
      'CREATE TABLE IF NOT EXISTS db1.events ON CLUSTER tracking AS db1.events_local ENGINE = Distributed(tracking, db1, events_local, cityHash64(account_id, user_id))',
    ],
  )
})

t.test("every statement of this folder's migrations has a cluster form", async (t) => {
  const statements = (await loadMigrations()).flatMap((m) => m.statements.map((s) => renderStatement(s, 'db1')))
  const sharded = shardedTables(statements)
  t.same([...sharded].sort(), [
    'event_counts_dirty',
    'event_counts_hourly',
    'events',
    'groups',
    'identifies',
    'identity_links',
    'person_counts_daily',
    'person_weeks',
    'property_counts_daily',
    'property_counts_hourly',
    'refusals_by_minute',
    'refused_samples',
    'retry_ids',
    'usage_monthly',
    'usage_monthly_sharded',
    'user_traits',
    'users',
  ])
  for (const s of statements) t.doesNotThrow(() => clusterSteps(s, { ...target, sharded }), s.slice(0, 60))
  const all = statements.flatMap((s) => clusterSteps(s, { ...target, sharded })).map((s) => squash(s.sql))
  // No materialized view reads or writes a Distributed table: each would write every row twice.
  for (const s of all.filter((x) => x.startsWith('CREATE MATERIALIZED VIEW')))
    t.notMatch(
      s,
      /db1\.(events|identifies|users|usage_monthly|usage_monthly_sharded|retry_ids|user_traits|identity_links|groups|person_weeks)\b(?!_local)/,
      s.slice(0, 60),
    )
})
