// Runs every query of schemas/clickhouse/README.md's section "Analytics queries" (read from the
// guide, each block found by its <!-- query: name --> comment) against a fresh, migrated database on
// the stack's ClickHouse (A8), holding fixture data projected twice (A5), and checks each answer.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { ClickHouseWriter } from '../../services/projector/src/clickhouse/writer.js'
import { createTestDatabase, makeEvent, makeIdentify } from '../support/clickhouse-helpers.js'
import { markdownSection, namedSqlBlocks } from '../support/readme-sql.js'

const readme = await readFile(fileURLToPath(new URL('../../schemas/clickhouse/README.md', import.meta.url)), 'utf8')
const queries = namedSqlBlocks(markdownSection(readme, 'Analytics queries'))

const db = await createTestDatabase({ prefix: 'readme', t })
const { client, database } = db
// Numbers as JSON numbers on every version (25.8 changed the default for 64-bit integers).
const read = async <T>(query: string) =>
  (
    await client.query({
      query,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
  ).json<T>()
const run = <T = Record<string, unknown>>(name: string) => {
  const query = queries.get(name)
  if (query === undefined) throw new Error(`README.md has no query "${name}"`)
  return read<T>(query.replaceAll('tracking.', `${database}.`))
}

const at = (iso: string) => Date.parse(iso)
const ev = (user_id: string, event: string, iso: string, over: Parameters<typeof makeEvent>[0] = {}) =>
  makeEvent({ user_id, event, timestamp: at(iso), received_at: at(iso) + 20, ...over })
const view = (user_id: string, iso: string, path: string) =>
  ev(user_id, 'page_viewed', iso, { properties: JSON.stringify({ page: { path } }) })
/** Rows as JSONEachRow gives them, from column names and one array of values per row. */
const table = (columns: string[], rows: unknown[][]) =>
  rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])))
const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000

// Weeks (Monday starts): 2024-05-06, 05-13, 05-20, 05-27, 06-10.
const events = [
  // u1: every step; the order 25 days after the sign-up (past 2^31 ms, about 24.8 days).
  ev('u1', 'signed_up', '2024-05-06T09:00:00.000Z'),
  ev('u1', 'checkout_started', '2024-05-06T09:00:00.400Z'),
  view('u1', '2024-05-06T09:01:00.000Z', '/pricing'),
  view('u1', '2024-05-06T09:02:00.000Z', '/docs'),
  ev('u1', 'order_completed', '2024-05-31T10:00:00.000Z', { properties: '{"amount":49.5}' }),
  // u2: two steps.
  ev('u2', 'signed_up', '2024-05-06T10:00:00.000Z'),
  view('u2', '2024-05-06T10:00:30.000Z', '/pricing'),
  ev('u2', 'checkout_started', '2024-05-07T10:00:00.000Z'),
  view('u2', '2024-05-21T10:00:00.000Z', '/pricing'),
  // u3: signed up only.
  ev('u3', 'signed_up', '2024-05-07T11:00:00.000Z'),
  view('u3', '2024-05-14T11:00:00.000Z', '/pricing'),
  view('u3', '2024-05-14T11:00:05.000Z', '/pricing'),
  // u4: ordered 30 days and 1 ms after signing up: outside the window, two steps.
  ev('u4', 'signed_up', '2024-05-13T08:00:00.000Z'),
  ev('u4', 'checkout_started', '2024-05-13T08:05:00.000Z'),
  view('u4', '2024-05-20T08:00:00.000Z', '/docs'),
  ev('u4', 'order_completed', new Date(at('2024-05-13T08:00:00.000Z') + THIRTY_DAYS_MS + 1).toISOString()),
  // u5: the checkout 800 ms before the sign-up, in the same second: one step.
  ev('u5', 'checkout_started', '2024-05-13T09:00:00.100Z'),
  ev('u5', 'signed_up', '2024-05-13T09:00:00.900Z'),
  // Outside the queries: another account, test data, a time outside the range.
  ev('u1', 'signed_up', '2024-05-06T09:00:00.000Z', { account_id: 'acc_other' }),
  ev('u9', 'signed_up', '2024-05-06T09:00:00.000Z', { environment: 'test' }),
  ev('u3', 'page_viewed', '2024-07-01T00:00:00.000Z'),
]
const identify = (user_id: string, iso: string, traits: object, email: string | null = null) =>
  makeIdentify({ user_id, timestamp: at(iso), received_at: at(iso) + 20, email, traits: JSON.stringify(traits) })
const identifies = [
  identify('u1', '2024-05-06T09:00:00.250Z', { plan: 'free', company: 'Acme', seats: 3 }, 'u1@example.com'),
  identify('u1', '2024-05-20T12:00:00.000Z', { plan: 'pro' }),
  identify('u2', '2024-05-06T10:00:01.000Z', { plan: 'pro' }),
  identify('u3', '2024-05-07T11:00:01.000Z', { plan: 'free' }),
  { ...identify('u9', '2024-05-06T09:00:01.000Z', { plan: 'pro' }), environment: 'test' as const },
]

t.before(async () => {
  const writer = new ClickHouseWriter(client, database)
  await writer.write({ events, identifies })
  await writer.write({ events, identifies }) // projected twice (A5)
})

t.test('the server is a supported ClickHouse (24.8 or later, A9)', async (t) => {
  const [row] = await read<{ major: number; minor: number }>(
    "SELECT toUInt32(splitByChar('.', version())[1]) AS major, toUInt32(splitByChar('.', version())[2]) AS minor",
  )
  t.ok(row!.major > 24 || (row!.major === 24 && row!.minor >= 8), `version ${row!.major}.${row!.minor} at ${db.url}`)
})

t.test('every query of the section is checked below', async (t) => {
  t.same([...queries.keys()].sort(), [
    'anonymous-funnel',
    'daily-active-users',
    'events-per-user-percentiles',
    'funnel',
    'proposal-user-id-index',
    'top-events',
    'trend-by-property',
    'user-profile',
    'users-with-trait',
    'weekly-active-users',
    'weekly-retention',
  ])
})

t.test('daily active users', async (t) => {
  t.same(
    await run('daily-active-users'),
    table(
      ['day', 'active_users'],
      [
        ['2024-05-06', 2],
        ['2024-05-07', 2],
        ['2024-05-13', 2],
        ['2024-05-14', 1],
        ['2024-05-20', 1],
        ['2024-05-21', 1],
        ['2024-05-31', 1],
        ['2024-06-12', 1],
      ],
    ),
  )
})

t.test('weekly active users, weeks from Monday', async (t) => {
  t.same(
    await run('weekly-active-users'),
    table(
      ['week', 'active_users'],
      [
        ['2024-05-06', 3],
        ['2024-05-13', 3],
        ['2024-05-20', 2],
        ['2024-05-27', 1],
        ['2024-06-10', 1],
      ],
    ),
  )
})

t.test('top events with their share of all events', async (t) => {
  t.same(
    await run('top-events'),
    table(
      ['event', 'events', 'users', 'percent'],
      [
        ['page_viewed', 7, 4, 38.9],
        ['signed_up', 5, 5, 27.8],
        ['checkout_started', 4, 4, 22.2],
        ['order_completed', 2, 2, 11.1],
      ],
    ),
  )
})

t.test('page views per week and nested property', async (t) => {
  t.same(
    await run('trend-by-property'),
    table(
      ['week', 'path', 'views'],
      [
        ['2024-05-06', '/docs', 1],
        ['2024-05-06', '/pricing', 2],
        ['2024-05-13', '/pricing', 2],
        ['2024-05-20', '/docs', 1],
        ['2024-05-20', '/pricing', 1],
      ],
    ),
  )
})

t.test(
  'three-step funnel in milliseconds: 25 days counts, 30 days + 1 ms does not, order within a second kept',
  async (t) => {
    t.same(await run('funnel'), [{ signed_up: 5, started_checkout: 3, ordered: 1 }])
  },
)

t.test('weekly retention', async (t) => {
  t.same(
    await run('weekly-retention'),
    table(
      ['cohort', 'week_number', 'users'],
      [
        ['2024-05-06', 0, 3],
        ['2024-05-06', 1, 1],
        ['2024-05-06', 2, 1],
        ['2024-05-06', 3, 1],
        ['2024-05-13', 0, 2],
        ['2024-05-13', 1, 1],
        ['2024-05-13', 4, 1],
      ],
    ),
  )
})

t.test('percentiles of events per user (2, 3, 4, 4, 5)', async (t) => {
  t.same(await run('events-per-user-percentiles'), [{ users: 5, p50: 4, p90: 5, max: 5 }])
})

t.test('one user profile: millisecond times, traits as stored JSON text, plan decoded', async (t) => {
  t.same(await run('user-profile'), [
    {
      user_id: 'u1',
      email: 'u1@example.com',
      first_seen: '2024-05-06 09:00:00.000',
      last_seen: '2024-05-31 10:00:00.000',
      traits: { company: '"Acme"', plan: '"pro"', seats: '3' },
      plan: 'pro',
    },
  ])
})

t.test('users with a trait value: decoded value finds them, the bare string does not', async (t) => {
  t.same(await run('users-with-trait'), [{ user_id: 'u1' }, { user_id: 'u2' }])
  const trap = (queries.get('users-with-trait') ?? '').replace("JSONExtractString(value) = 'pro'", "value = 'pro'")
  t.same(await read(trap.replaceAll('tracking.', `${database}.`)), [], "value = 'pro' finds nothing, as the guide says")
})

t.test('anonymous visitors merge into their person: the funnel counts people, not ids (H50, H52)', async (t) => {
  // Its own database: these rows would change every answer above.
  const other = await createTestDatabase({ prefix: 'readme_identity', t })
  const writer = new ClickHouseWriter(other.client, other.database)
  const visit = (user_id: string, event: string, iso: string, anonymous_id = '') =>
    makeEvent({ user_id, event, anonymous_id, timestamp: at(iso), received_at: at(iso) + 20 })
  // a-1 browses anonymously, then signs up as p1 (the identify links them) and buys; a-2 only browses.
  const events = [
    visit('a-1', 'page_viewed', '2024-05-06T09:00:00.000Z', 'a-1'),
    visit('p1', 'signup_completed', '2024-05-06T09:05:00.000Z', 'a-1'),
    visit('p1', 'purchase_completed', '2024-05-07T10:00:00.000Z'),
    visit('a-2', 'page_viewed', '2024-05-06T11:00:00.000Z', 'a-2'),
  ]
  const identifies = [
    makeIdentify({
      user_id: 'p1',
      anonymous_id: 'a-1',
      timestamp: at('2024-05-06T09:05:00.000Z'),
      received_at: at('2024-05-06T09:05:00.020Z'),
    }),
  ]
  await writer.write({ events, identifies })
  await writer.write({ events, identifies }) // projected twice (A5)
  const query = (queries.get('anonymous-funnel') ?? '').replaceAll('tracking.', `${other.database}.`)
  const rows = await (
    await other.client.query({
      query,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
  ).json()
  // Counting ids instead of people would give 2 viewed and nobody past the first step.
  t.same(rows, [{ viewed: 2, signed_up: 1, purchased: 1 }])
})

// Last: it changes the table.
t.test('the proposed user_id skip index applies, is used for one user, and changes no answer', async (t) => {
  const dau = await run('daily-active-users')
  for (const statement of (queries.get('proposal-user-id-index') ?? '').split(/;\n/)) {
    if (statement.trim()) await client.command({ query: statement.replaceAll('tracking.', `${database}.`) })
  }
  const plan = await read<{ explain: string }>(
    `EXPLAIN indexes = 1 SELECT count() FROM ${database}.events FINAL WHERE account_id = 'acc_1' AND environment = 'live' AND user_id = 'u1'`,
  )
  t.ok(
    plan.some((r) => r.explain.includes('user_id_bloom')),
    'the plan names the index',
  )
  t.same(await run('daily-active-users'), dau)
  t.same(
    await read(
      `SELECT count() AS n FROM ${database}.events FINAL WHERE account_id = 'acc_1' AND environment = 'live' AND user_id = 'u1'`,
    ),
    [{ n: 5 }],
  )
})
