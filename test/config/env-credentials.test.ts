// docs/security.md: credentials are configuration the services pass through (Kafka SASL/TLS, registry basic
// auth, ClickHouse user and password), and REQUIRE_SECRETS makes a missing one stop start-up by name.
import t from 'tap'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { loadDashboardConfig } from '../../services/dashboard/src/config.js'
import { ConfigError, redactUrl } from '../../services/shared/src/env.js'

const variableOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (err) {
    if (err instanceof ConfigError) return err.variable
    throw err
  }
  return undefined
}

t.test('Kafka SASL and TLS pass through; a mechanism without credentials is refused naming the variable', async (t) => {
  t.same(
    loadIngestConfig({}).kafka,
    { brokers: ['127.0.0.1:19092'], clientId: 'tracking', ssl: false },
    'local stack: no SASL, no TLS',
  )
  const c = loadIngestConfig({
    KAFKA_SSL: 'true',
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: 'svc',
    KAFKA_SASL_PASSWORD: 'pw',
  })
  t.same(c.kafka.sasl, { mechanism: 'scram-sha-512', username: 'svc', password: 'pw' })
  t.equal(c.kafka.ssl, true)
  t.equal(
    variableOf(() => loadIngestConfig({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'svc' })),
    'KAFKA_SASL_PASSWORD',
  )
  t.equal(
    variableOf(() => loadIngestConfig({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: 'pw' })),
    'KAFKA_SASL_USERNAME',
  )
  t.equal(
    variableOf(() => loadIngestConfig({ KAFKA_SASL_PASSWORD: 'pw', KAFKA_SASL_USERNAME: 'svc' })),
    'KAFKA_SASL_MECHANISM',
    'credentials without a mechanism',
  )
  t.equal(
    variableOf(() => loadIngestConfig({ KAFKA_SASL_MECHANISM: 'gssapi' })),
    'KAFKA_SASL_MECHANISM',
  )
})

t.test('ClickHouse and registry credentials pass through', async (t) => {
  const c = loadProjectorConfig({
    CLICKHOUSE_USER: 'tracking',
    CLICKHOUSE_PASSWORD: 's3cret',
    SCHEMA_REGISTRY_USERNAME: 'reg',
    SCHEMA_REGISTRY_PASSWORD: 'regpw',
  })
  t.match(c.clickhouse, { username: 'tracking', password: 's3cret' })
  t.same(c.registryAuth, { username: 'reg', password: 'regpw' })
  t.equal(loadProjectorConfig({}).registryAuth, undefined)
  t.equal(
    variableOf(() => loadProjectorConfig({ SCHEMA_REGISTRY_PASSWORD: 'regpw' })),
    'SCHEMA_REGISTRY_USERNAME',
  )
})

t.test(
  'REQUIRE_SECRETS: every service refuses to start without its secrets, naming the first missing one',
  async (t) => {
    const full = {
      REQUIRE_SECRETS: 'true',
      CLICKHOUSE_PASSWORD: 'chpw',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'svc',
      KAFKA_SASL_PASSWORD: 'kpw',
      LIVE_TOKEN: 'l'.repeat(32),
      SESSION_SECRET: 's'.repeat(32),
      PRIVACY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    }
    t.doesNotThrow(() => loadIngestConfig(full))
    t.doesNotThrow(() => loadProjectorConfig(full))
    t.doesNotThrow(() => loadDashboardConfig(full))
    const without = (name: keyof typeof full) => ({ ...full, [name]: '' })
    t.equal(
      variableOf(() => loadIngestConfig(without('CLICKHOUSE_PASSWORD'))),
      'CLICKHOUSE_PASSWORD',
    )
    t.equal(
      variableOf(() =>
        loadIngestConfig({ ...full, KAFKA_SASL_MECHANISM: 'none', KAFKA_SASL_USERNAME: '', KAFKA_SASL_PASSWORD: '' }),
      ),
      'KAFKA_SASL_MECHANISM',
    )
    t.equal(
      variableOf(() => loadProjectorConfig(without('LIVE_TOKEN'))),
      'LIVE_TOKEN',
    )
    // A15: the master key that wraps data keys is a credential of both services that read personal fields.
    for (const load of [loadIngestConfig, loadProjectorConfig])
      t.equal(
        variableOf(() => load(without('PRIVACY_MASTER_KEY'))),
        'PRIVACY_MASTER_KEY',
        load.name,
      )
    t.equal(
      variableOf(() => loadDashboardConfig(without('LIVE_TOKEN'))),
      'LIVE_TOKEN',
    )
    t.equal(
      variableOf(() => loadDashboardConfig(without('SESSION_SECRET'))),
      'SESSION_SECRET',
    )
    t.equal(
      variableOf(() => loadIngestConfig({ ...full, LIVE_TOKEN: '', SESSION_SECRET: '' })),
      undefined,
      'the ingest needs neither',
    )
    t.doesNotThrow(() => loadDashboardConfig({}), 'off by default: the local stack runs without secrets')
  },
)

t.test('a short LIVE_TOKEN is refused by the projector and the dashboard', async (t) => {
  t.equal(
    variableOf(() => loadProjectorConfig({ LIVE_TOKEN: 'change-me' })),
    'LIVE_TOKEN',
  )
  t.equal(
    variableOf(() => loadDashboardConfig({ LIVE_TOKEN: 'change-me' })),
    'LIVE_TOKEN',
  )
  t.equal(loadProjectorConfig({ LIVE_TOKEN: 'x'.repeat(24) }).liveToken, 'x'.repeat(24))
})

// A start-up error is logged where more people read than hold the secrets: it names the variable and
// never echoes a value that may carry a credential (docs/security.md).
t.test('a bad secret or URL is named, its value never echoed', async (t) => {
  const messageOf = (fn: () => unknown): string => {
    try {
      fn()
    } catch (err) {
      if (err instanceof ConfigError) return err.message
      throw err
    }
    return ''
  }
  const secret = 'hunter2-Sup3rS3cret'
  const cases: Array<[string, () => unknown]> = [
    ['CLICKHOUSE_URL', () => loadIngestConfig({ CLICKHOUSE_URL: `clickhouse://admin:${secret}@ch.internal:8123` })],
    ['SCHEMA_REGISTRY_URL', () => loadProjectorConfig({ SCHEMA_REGISTRY_URL: `ftp://reg:${secret}@registry` })],
    ['REDIS_URL', () => loadIngestConfig({ REDIS_URL: `http://u:${secret}/x@redis.internal:6379` })],
    ['PROJECTOR_URL', () => loadDashboardConfig({ PROJECTOR_URL: `tcp://svc:${secret}@projector` })],
    ['SESSION_SECRET', () => loadDashboardConfig({ SESSION_SECRET: secret })],
  ]
  for (const [variable, load] of cases) {
    const message = messageOf(load)
    t.match(message, new RegExp(`^${variable}: `), `${variable} is named`)
    t.notMatch(message, /hunter2|S3cret/, `${variable}: the secret is not in the message`)
  }
  t.match(
    messageOf(() => loadIngestConfig({ INGEST_PORT: 'eighty' })),
    /"eighty"/,
    'a value that is no secret is still shown, to help fix it',
  )
})

t.test('a URL shown in a log or an error loses its user and password', async (t) => {
  t.equal(redactUrl('http://127.0.0.1:18123'), 'http://127.0.0.1:18123')
  t.notMatch(redactUrl('http://admin:pa%2Fss@ch.internal:8123/'), /admin|pa%2Fss/)
  t.match(redactUrl('http://admin:pw@ch.internal:8123/'), /^http:\/\/\*\*\*@ch\.internal:8123/)
  t.notMatch(redactUrl('not a url admin:pw@'), /pw/)
})
