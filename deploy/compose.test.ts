// docs/security.md: the compose deployment publishes only ingest and the dashboard, and no secret has a
// default. Docker is not on these machines, so the file is parsed here (the `yaml` package tap
// already brings) and its shape checked.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { nodeFlagsFor } from '../services/shared/src/node-flags.js'

const FILE = join(dirname(fileURLToPath(import.meta.url)), 'docker-compose.yml')
const text = readFileSync(FILE, 'utf8')
const compose = parse(text, { merge: true }) as { services: Record<string, any> }
const services = compose.services
const SECRET_NAME = /(PASSWORD|SECRET|TOKEN)$/
/** `${NAME:?message}`: compose refuses to start when NAME is unset or empty. */
const REQUIRED = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`)
const ANY_REQUIRED_SECRET = /^\$\{\w*(PASSWORD|SECRET|TOKEN):\?[^}]+\}$/

const envOf = (name: string): Record<string, string> => {
  const env = services[name].environment ?? {}
  return Array.isArray(env) ? Object.fromEntries(env.map((e: string) => e.split(/=(.*)/s).slice(0, 2))) : env
}

t.test('only ingest and the dashboard publish ports', async (t) => {
  const published = Object.entries(services)
    .filter(([, s]) => s.ports?.length)
    .map(([name]) => name)
    .sort()
  t.same(published, ['dashboard', 'ingest'])
  t.same(services.ingest.ports, ['8080:8080'])
  t.same(services.dashboard.ports, ['8082:8082'])
  for (const [name, s] of Object.entries(services)) t.not(s.network_mode, 'host', `${name} stays off the host network`)
})

t.test("ingest's readiness and metrics stay off the published port (H36)", async (t) => {
  const env = envOf('ingest')
  t.equal(env.INGEST_ADMIN_HOST, undefined, 'the admin listener keeps its loopback default inside the container')
  t.notOk(
    (services.ingest.ports as string[]).some((p) => /8090/.test(p)),
    'the admin port is not published',
  )
  t.match(
    services.ingest.healthcheck.test.join(' '),
    /http:\/\/127\.0\.0\.1:8090\/health\/ready/,
    'the health check reads readiness on the admin port',
  )
})

t.test('every secret comes from the environment with no default', async (t) => {
  let checked = 0
  for (const name of Object.keys(services)) {
    for (const [key, value] of Object.entries(envOf(name))) {
      if (!SECRET_NAME.test(key)) continue
      checked++
      t.match(String(value), ANY_REQUIRED_SECRET, `${name}: ${key} is a required variable, \${...:?...}`)
    }
  }
  t.ok(checked >= 4, 'the secrets are there to check')
  // Anywhere in the file (e.g. inside Kafka's JAAS line), a secret variable never gets a default.
  for (const m of text.matchAll(/\$\{(\w+)(:?[-?+=])?/g)) {
    if (SECRET_NAME.test(m[1]!)) t.equal(m[2], ':?', `\${${m[1]}} is required, never defaulted`)
  }
  for (const m of text.matchAll(/password="([^"]*)"/g))
    t.match(m[1], /^(\$\{\w+:\?[^}]+\}|%s)$/, 'no literal password in a JAAS line')
  t.notMatch(text, /change-me/i)
})

t.test('the services authenticate to Kafka and ClickHouse and refuse to start without secrets', async (t) => {
  const ch = envOf('clickhouse')
  t.not(ch.CLICKHOUSE_USER, 'default', 'ClickHouse gets its own user instead of the passwordless default')
  t.match(ch.CLICKHOUSE_PASSWORD, REQUIRED('CLICKHOUSE_PASSWORD'))
  t.equal(String(ch.CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT), '0')
  const kafka = envOf('kafka')
  const protocols = Object.fromEntries(
    String(kafka.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP)
      .split(',')
      .map((p) => p.split(':')),
  )
  const advertised = String(kafka.KAFKA_ADVERTISED_LISTENERS)
    .split(',')
    .map((l) => l.split(':')[0]!)
  for (const l of advertised) t.match(protocols[l], /^SASL_/, `clients reach Kafka's ${l} listener with SASL`)
  for (const name of ['projector', 'ingest', 'dashboard']) {
    const env = envOf(name)
    t.equal(env.REQUIRE_SECRETS, 'true', `${name} refuses to start without its secrets`)
    t.equal(env.CLICKHOUSE_USER, ch.CLICKHOUSE_USER, `${name} uses the ClickHouse user`)
    t.match(env.CLICKHOUSE_PASSWORD, REQUIRED('CLICKHOUSE_PASSWORD'))
    t.equal(
      String(env.KAFKA_SASL_MECHANISM).toUpperCase(),
      kafka.KAFKA_SASL_ENABLED_MECHANISMS,
      `${name} uses the broker's SASL mechanism`,
    )
    t.match(env.KAFKA_SASL_PASSWORD, REQUIRED('KAFKA_SASL_PASSWORD'))
  }
})

t.test('the services run compiled JavaScript from the image built by deploy/Dockerfile', async (t) => {
  const doc = parse(text) as { services: Record<string, { command?: string[] }> }
  for (const name of ['projector', 'ingest', 'dashboard']) {
    // with its production node flags (services/shared/src/node-flags.ts says why)
    t.same(
      doc.services[name].command,
      ['node', ...nodeFlagsFor(name), `dist/services/${name}/src/main.js`],
      `${name} starts from dist/`,
    )
  }
})

t.test("the dashboard reads as the read-only ClickHouse user, with the local stack's profile (H23)", async (t) => {
  const dash = envOf('dashboard')
  t.equal(dash.CLICKHOUSE_READ_USER, 'dashboard_read')
  t.match(dash.CLICKHOUSE_READ_PASSWORD, REQUIRED('CLICKHOUSE_READ_PASSWORD'))
  t.match(
    envOf('clickhouse').CLICKHOUSE_READ_PASSWORD,
    REQUIRED('CLICKHOUSE_READ_PASSWORD'),
    'the server gets the same password',
  )
  const mounted = (services.clickhouse.volumes as string[]).find((v) => v.includes('users.d/dashboard-read.xml'))!
  t.ok(mounted, 'the user file is mounted into users.d')
  const composeXml = readFileSync(join(dirname(FILE), mounted.split(':')[0]!), 'utf8')
  const localXml = readFileSync(join(dirname(FILE), 'local/clickhouse/users.xml'), 'utf8')
  const profile = (xml: string) =>
    /<profiles>[\s\S]*?<dashboard_read>([\s\S]*?)<\/dashboard_read>/.exec(xml)?.[1]?.replace(/\s+/g, '')
  t.ok(profile(localXml), 'the local stack defines the profile')
  t.equal(profile(composeXml), profile(localXml), 'compose and the local stack bound dashboard queries alike')
  t.match(composeXml, /<password from_env="CLICKHOUSE_READ_PASSWORD"\/>/, 'no password in the file')
})

t.test("the writers' insert settings are the local stack's (A26)", async (t) => {
  const mounted = (services.clickhouse.volumes as string[]).find((v) => v.includes('users.d/insert-defaults.xml'))!
  t.ok(mounted, 'the settings file is mounted into users.d')
  const composeXml = readFileSync(join(dirname(FILE), mounted.split(':')[0]!), 'utf8')
  const localXml = readFileSync(join(dirname(FILE), 'local/chdb/users.d/server-defaults.xml'), 'utf8')
  const setting = (xml: string, name: string) =>
    new RegExp(`<profiles>[\\s\\S]*?<default>[\\s\\S]*?<${name}>(\\d+)</${name}>`).exec(xml)?.[1]
  for (const name of ['optimize_on_insert', 'input_format_parallel_parsing']) {
    t.equal(setting(localXml, name), '0', `the local stack sets ${name} to 0`)
    t.equal(setting(composeXml, name), setting(localXml, name), `compose sets ${name} as the local stack does`)
  }
})

t.test('dashboard cookies are Secure (and __Host- prefixed) unless turned off on purpose', async (t) => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's own interpolation, kept as text in the file
  t.equal(envOf('dashboard').COOKIE_SECURE, '${COOKIE_SECURE:-true}')
})
