import t from 'tap'
import { loadDashboardConfig } from './config.js'
import { accountIdFor } from './api/routes.js'
import { ACCOUNT_ID_PATTERN } from '../../shared/src/accounts/accounts-admin.js'

t.test('config: defaults, validation naming the variable', async (t) => {
  const c = loadDashboardConfig({})
  t.match(c, {
    port: 8082,
    host: '127.0.0.1',
    projectorUrl: 'http://127.0.0.1:8081',
    ingestUrl: 'http://127.0.0.1:8080',
    sessionSecretGenerated: true,
    cookieSecure: false,
  })
  t.equal(c.sessionSecret.length, 32)
  t.equal(loadDashboardConfig({ SESSION_SECRET: 'x'.repeat(32) }).sessionSecretGenerated, false)
  t.throws(() => loadDashboardConfig({ SESSION_SECRET: 'short' }), /SESSION_SECRET/)
  t.throws(() => loadDashboardConfig({ DASHBOARD_PORT: 'abc' }), /DASHBOARD_PORT/)
  t.throws(() => loadDashboardConfig({ PROJECTOR_URL: 'ftp://x' }), /PROJECTOR_URL/)
  t.throws(() => loadDashboardConfig({ DASHBOARD_ALLOWED_ORIGINS: 'http://a.test/path' }), /DASHBOARD_ALLOWED_ORIGINS/)
  t.same(
    [...loadDashboardConfig({ DASHBOARD_ALLOWED_ORIGINS: 'http://a.test/, https://b.test:8443' }).allowedOrigins],
    ['http://a.test', 'https://b.test:8443'],
  )
})

t.test('account ids derived from the email are valid and distinct', async (t) => {
  for (const email of [
    'alice@example.com',
    'Bob.Smith+tag@x.io',
    '...@x.io',
    'ünïcødé@x.io',
    `${'a'.repeat(64)}@x.io`,
  ]) {
    const id = accountIdFor(email)
    t.match(id, ACCOUNT_ID_PATTERN, `${email} -> ${id}`)
  }
  t.match(accountIdFor('Bob.Smith+tag@x.io'), /^bob-smith-tag-[0-9a-f]{6}$/)
  t.not(accountIdFor('a@x.io'), accountIdFor('a@x.io'))
})

t.test('COOKIE_SECURE defaults to on when the dashboard is served over https (docs/security.md)', async (t) => {
  t.equal(loadDashboardConfig({}).cookieSecure, false, 'plain http on loopback: off')
  t.equal(
    loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'https://dash.example.com' }).cookieSecure,
    true,
    'https public URL: on',
  )
  t.equal(
    loadDashboardConfig({ DASHBOARD_ALLOWED_ORIGINS: 'https://dash.example.com' }).cookieSecure,
    true,
    'https origin: on',
  )
  t.equal(
    loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'https://dash.example.com', COOKIE_SECURE: 'false' }).cookieSecure,
    false,
    'an explicit false wins',
  )
  t.equal(loadDashboardConfig({ COOKIE_SECURE: 'true' }).cookieSecure, true)
  t.throws(() => loadDashboardConfig({ COOKIE_SECURE: 'maybe' }), /COOKIE_SECURE/)
  t.throws(() => loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'dash.example.com' }), /DASHBOARD_PUBLIC_URL/)
})

t.test('secure cookies carry the __Host- prefix; plain-http ones cannot', async (t) => {
  t.same(loadDashboardConfig({ DASHBOARD_PUBLIC_URL: 'https://dash.example.com' }).cookies, {
    session: '__Host-dash_session',
    csrf: '__Host-dash_csrf',
  })
  t.same(
    loadDashboardConfig({}).cookies,
    { session: 'dash_session', csrf: 'dash_csrf' },
    'browsers refuse __Host- without Secure',
  )
})

t.test('the read-only ClickHouse user (H23): named, or the common user with a flag saying so', async (t) => {
  const common = loadDashboardConfig({ CLICKHOUSE_USER: 'tracking', CLICKHOUSE_PASSWORD: 'w' }).clickhouseRead
  t.match(common, { username: 'tracking', password: 'w', readOnlyUser: false })
  const read = loadDashboardConfig({
    CLICKHOUSE_USER: 'tracking',
    CLICKHOUSE_PASSWORD: 'w',
    CLICKHOUSE_READ_USER: 'dashboard_read',
    CLICKHOUSE_READ_PASSWORD: 'r',
  }).clickhouseRead
  t.match(read, { username: 'dashboard_read', password: 'r', readOnlyUser: true })
  t.throws(() => loadDashboardConfig({ CLICKHOUSE_READ_PASSWORD: 'r' }), /CLICKHOUSE_READ_PASSWORD/)
})
