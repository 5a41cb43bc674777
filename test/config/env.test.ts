import t from 'tap'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { ConfigError } from '../../services/shared/src/env.js'

t.test('defaults give a working local configuration', async (t) => {
  const c = loadIngestConfig({})
  t.same(c.kafka.brokers, ['127.0.0.1:19092'])
  t.equal(c.topics.events, 'tracking.events.v1')
  t.equal(c.port, 8080)
  t.same([...c.acceptedKeyTypes].sort(), ['live', 'test'])
  t.equal(c.bodyLimits.single, 1_000_000)
  t.equal(loadProjectorConfig({}).groupId, 'tracking-projector')
})

t.test('values are parsed and validated', async (t) => {
  const c = loadIngestConfig({
    KAFKA_BROKERS: 'a:1, b:2',
    INGEST_PORT: '9000',
    KAFKA_TRANSACTIONS: 'false',
    ACCEPTED_KEY_TYPES: 'live',
  })
  t.same(c.kafka.brokers, ['a:1', 'b:2'])
  t.equal(c.port, 9000)
  t.equal(c.producer.transactional, false)
  t.same([...c.acceptedKeyTypes], ['live'])
})

t.test('a bad value stops start-up naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ INGEST_PORT: 'eighty' }, 'INGEST_PORT'],
    [{ INGEST_PORT: '70000' }, 'INGEST_PORT'],
    [{ CLICKHOUSE_URL: 'localhost:8123' }, 'CLICKHOUSE_URL'],
    [{ KAFKA_TRANSACTIONS: 'maybe' }, 'KAFKA_TRANSACTIONS'],
    [{ ACCEPTED_KEY_TYPES: 'live,prod' }, 'ACCEPTED_KEY_TYPES'],
    [{ CLICKHOUSE_DATABASE: 'bad-name;drop' }, 'CLICKHOUSE_DATABASE'],
    [{ TOPIC_EVENTS: 'same', TOPIC_IDENTIFIES: 'same' }, 'TOPIC_*'],
  ]
  for (const [env, variable] of cases) {
    try {
      loadIngestConfig(env)
      t.fail(`${variable} should be refused`)
    } catch (err) {
      t.type(err, ConfigError)
      t.equal((err as ConfigError).variable, variable, `${JSON.stringify(env)} names ${variable}`)
    }
  }
})

t.test('topic replication is configuration, checked for sense', async (t) => {
  t.same(loadIngestConfig({}).topicReplication, { factor: 1, minInsync: 1 }, 'one copy for the single local broker')
  t.same(loadIngestConfig({ TOPIC_REPLICATION_FACTOR: '3', TOPIC_MIN_INSYNC_REPLICAS: '2' }).topicReplication, {
    factor: 3,
    minInsync: 2,
  })
  t.throws(() => loadIngestConfig({ TOPIC_REPLICATION_FACTOR: '1', TOPIC_MIN_INSYNC_REPLICAS: '2' }), {
    variable: 'TOPIC_MIN_INSYNC_REPLICAS',
  } as any)
})

t.test('producer deadlines and bounds have defaults and limits', async (t) => {
  const c = loadIngestConfig({})
  t.equal(c.producer.flushTimeoutMs, 10_000)
  t.equal(c.producer.maxQueuedRecords, 50_000)
  t.equal(c.producer.plainPoolSize, 4)
  t.throws(() => loadIngestConfig({ PRODUCER_FLUSH_TIMEOUT_MS: '0' }), {
    name: 'Error',
    variable: 'PRODUCER_FLUSH_TIMEOUT_MS',
  } as any)
})

t.test('REDIS_URL: unset keeps the in-memory limiters; set, the limits are shared (docs/scaling.md)', async (t) => {
  t.equal(loadIngestConfig({}).redis, undefined, 'no Redis by default')
  t.same(loadIngestConfig({ REDIS_URL: 'redis://127.0.0.1:16379' }).redis, {
    url: 'redis://127.0.0.1:16379',
    timeoutMs: 1000,
    retryMs: 1000,
    keyPrefix: 'tracking:',
  })
  t.same(
    loadIngestConfig({ REDIS_URL: 'rediss://u:p@r.example:6380/2', REDIS_TIMEOUT_MS: '50', REDIS_KEY_PREFIX: 'a:' })
      .redis?.timeoutMs,
    50,
  )
  t.equal(loadIngestConfig({}).usageReconcileMs, 60_000, 'the shared counters are reconciled once a minute')
  t.equal(loadIngestConfig({}).usageRefreshMs, 5_000, 'the in-memory quota reads usage every 5 s')
  t.throws(() => loadIngestConfig({ REDIS_URL: 'http://127.0.0.1:6379' }), { variable: 'REDIS_URL' } as any)
  t.throws(() => loadIngestConfig({ REDIS_URL: 'redis://x', REDIS_TIMEOUT_MS: '0' }), {
    variable: 'REDIS_TIMEOUT_MS',
  } as any)
  const err = (() => {
    try {
      loadIngestConfig({ REDIS_URL: 'mysql://user:secret@h' })
    } catch (e) {
      return (e as Error).message
    }
  })()
  t.notMatch(err, /secret/, 'a password in a bad URL is not echoed')
})

t.test(
  'CLICKHOUSE_CLUSTER: empty is one server; a name must be an identifier; no test retention with it (H44)',
  async (t) => {
    t.equal(loadProjectorConfig({}).clickhouse.cluster, undefined)
    t.equal(loadProjectorConfig({ CLICKHOUSE_CLUSTER: 'tracking' }).clickhouse.cluster, 'tracking')
    t.throws(() => loadProjectorConfig({ CLICKHOUSE_CLUSTER: 'tracking; DROP' }), /CLICKHOUSE_CLUSTER/)
    t.throws(() => loadProjectorConfig({ CLICKHOUSE_CLUSTER: 'tracking', TEST_RETENTION_DAYS: '30' }), ConfigError)
    t.equal(loadProjectorConfig({ TEST_RETENTION_DAYS: '30' }).testRetentionDays, 30)
  },
)

t.test('REPLAY_JEMALLOC (A40): auto by default, off, or a path that exists', async (t) => {
  t.equal(loadProjectorConfig({}).replayJemalloc, 'auto')
  t.equal(loadProjectorConfig({ REPLAY_JEMALLOC: 'off' }).replayJemalloc, 'off')
  t.equal(loadProjectorConfig({ REPLAY_JEMALLOC: process.execPath }).replayJemalloc, process.execPath)
  t.throws(
    () => loadProjectorConfig({ REPLAY_JEMALLOC: '/nowhere/libjemalloc.so.2' }),
    { name: 'ConfigError', message: /REPLAY_JEMALLOC.*names no file/ },
    'a missing library is refused at start (the loader would only warn)',
  )
})
