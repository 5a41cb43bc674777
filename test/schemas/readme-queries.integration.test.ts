// Runs the analytics queries of README.md's section for 18.16 and later (copied here verbatim; a
// check below keeps the copies equal to the README) against a fresh, migrated test database holding
// fixture data projected twice.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { ClickHouseWriter } from '../../services/projector/src/clickhouse/writer.js'
import { createTestDatabase, makeEvent, makeIdentify, queryRows } from '../support/clickhouse-helpers.js'
import { markdownSection, sqlBlocks } from '../support/readme-sql.js'

const dailyActiveUsers = `SELECT toDate(timestamp) AS day, uniqExact(user_id) AS active_users
FROM tracking.events FINAL
WHERE account_id = 'acc_1' AND environment = 'live'
  AND timestamp >= toDateTime('2024-05-01 00:00:00', 'UTC')
  AND timestamp < toDateTime('2024-06-01 00:00:00', 'UTC')
GROUP BY day
ORDER BY day`

const topEvents = `SELECT event, count() AS events, uniqExact(user_id) AS users
FROM tracking.events FINAL
WHERE account_id = 'acc_1' AND environment = 'live'
  AND timestamp >= toDateTime('2024-05-01 00:00:00', 'UTC')
  AND timestamp < toDateTime('2024-06-01 00:00:00', 'UTC')
GROUP BY event
ORDER BY events DESC, event
LIMIT 10`

const funnel = `SELECT countIf(level >= 1) AS signed_up, countIf(level >= 2) AS ordered
FROM
(
    SELECT user_id, windowFunnel(604800)(timestamp, event = 'signed_up', event = 'order_completed') AS level
    FROM tracking.events FINAL
    WHERE account_id = 'acc_1' AND environment = 'live'
      AND event IN ('signed_up', 'order_completed')
      AND timestamp >= toDateTime('2024-05-01 00:00:00', 'UTC')
      AND timestamp < toDateTime('2024-06-01 00:00:00', 'UTC')
    GROUP BY user_id
)`

const userProfile = `SELECT p.user_id AS user_id, p.email AS email, p.first_seen AS first_seen, p.last_seen AS last_seen,
    t.trait_keys AS trait_keys, t.trait_values AS trait_values
FROM
(
    SELECT user_id, argMaxMerge(email_state) AS email,
        toDateTime(intDiv(minMerge(first_seen_state), 1000), 'UTC') AS first_seen,
        toDateTime(intDiv(maxMerge(last_seen_state), 1000), 'UTC') AS last_seen
    FROM tracking.users
    WHERE account_id = 'acc_1' AND environment = 'live' AND user_id = 'alice'
    GROUP BY user_id
) AS p
ALL LEFT JOIN
(
    SELECT user_id, groupArray(trait_key) AS trait_keys, groupArray(value) AS trait_values
    FROM
    (
        SELECT user_id, trait_key, value
        FROM tracking.user_traits FINAL
        WHERE account_id = 'acc_1' AND environment = 'live' AND user_id = 'alice'
        ORDER BY trait_key
    )
    GROUP BY user_id
) AS t USING (user_id)`

const eventsPerMinute = `SELECT toStartOfMinute(timestamp) AS minute, count() AS events
FROM tracking.events FINAL
WHERE account_id = 'acc_1'
  AND timestamp >= toDateTime('2024-05-20 10:00:00', 'UTC')
  AND timestamp < toDateTime('2024-05-20 11:00:00', 'UTC')
GROUP BY minute
ORDER BY minute`

const usersWithTrait = `SELECT user_id
FROM tracking.user_traits FINAL
WHERE account_id = 'acc_1' AND environment = 'live'
  AND trait_key = 'plan' AND value = '"pro"'
ORDER BY user_id`

const db = await createTestDatabase({ prefix: 'readme', t })
const { client, database } = db
const run = <T>(query: string) => queryRows<T>(client, query.replaceAll('tracking.', `${database}.`))

const at = (iso: string) => Date.parse(iso)
const ev = (user_id: string, event: string, iso: string, over: Parameters<typeof makeEvent>[0] = {}) =>
  makeEvent({ user_id, event, timestamp: at(iso), received_at: at(iso) + 20, ...over })

const events = [
  ev('alice', 'signed_up', '2024-05-20T10:00:05.123Z'),
  ev('alice', 'page_viewed', '2024-05-20T10:00:30.000Z', { properties: '{"path":"/pricing"}' }),
  ev('alice', 'page_viewed', '2024-05-20T10:00:45.500Z', { properties: '{"path":"/checkout"}' }),
  ev('alice', 'order_completed', '2024-05-22T09:00:00.000Z', { properties: '{"amount":49.5}' }),
  ev('bob', 'signed_up', '2024-05-20T10:01:10.000Z'),
  ev('bob', 'page_viewed', '2024-05-20T10:01:20.000Z'),
  ev('carol', 'order_completed', '2024-05-21T08:00:00.000Z'),
  ev('dave', 'signed_up', '2024-05-20T10:02:00.000Z', { environment: 'test' }),
  ev('zed', 'signed_up', '2024-05-20T10:00:00.000Z', { account_id: 'acc_other' }),
]
const identifies = [
  makeIdentify({ user_id: 'alice', timestamp: at('2024-05-20T10:00:06.000Z'), received_at: at('2024-05-20T10:00:06.000Z'), email: 'alice@example.com', traits: '{"plan":"free","company":"Acme"}' }),
  makeIdentify({ user_id: 'alice', timestamp: at('2024-05-21T12:00:00.000Z'), received_at: at('2024-05-21T12:00:00.000Z'), traits: '{"plan":"pro"}' }),
]

t.before(async () => {
  const writer = new ClickHouseWriter(client, database)
  await writer.write({ events, identifies })
  await writer.write({ events, identifies }) // projected twice (A5)
})

t.test('the copies here are the README queries, verbatim', async (t) => {
  const readme = await readFile(fileURLToPath(new URL('../../schemas/clickhouse/README.md', import.meta.url)), 'utf8')
  t.same(sqlBlocks(markdownSection(readme, 'Analytics queries')), [dailyActiveUsers, topEvents, funnel, userProfile, eventsPerMinute, usersWithTrait])
})

t.test('1. daily active users', async (t) => {
  const rows = await run<{ day: string; active_users: string }>(dailyActiveUsers)
  t.same(rows.map((r) => [r.day, Number(r.active_users)]), [
    ['2024-05-20', 2],
    ['2024-05-21', 1],
    ['2024-05-22', 1],
  ])
})

t.test('2. top events', async (t) => {
  const rows = await run<{ event: string; events: string; users: string }>(topEvents)
  t.same(rows.map((r) => [r.event, Number(r.events), Number(r.users)]), [
    ['page_viewed', 3, 2],
    ['order_completed', 2, 2],
    ['signed_up', 2, 2],
  ])
})

t.test('3. two-step funnel', async (t) => {
  const rows = await run<{ signed_up: string; ordered: string }>(funnel)
  t.same(rows.map((r) => [Number(r.signed_up), Number(r.ordered)]), [[2, 1]])
})

t.test('4. one user profile with traits', async (t) => {
  const rows = await run<{ user_id: string; email: string; first_seen: string; last_seen: string; trait_keys: string[]; trait_values: string[] }>(userProfile)
  t.same(rows, [
    {
      user_id: 'alice',
      email: 'alice@example.com',
      first_seen: '2024-05-20 10:00:05',
      last_seen: '2024-05-22 09:00:00',
      trait_keys: ['company', 'plan'],
      trait_values: ['"Acme"', '"pro"'],
    },
  ])
})

t.test('5. events per minute', async (t) => {
  const rows = await run<{ minute: string; events: string }>(eventsPerMinute)
  t.same(rows.map((r) => [r.minute, Number(r.events)]), [
    ['2024-05-20 10:00:00', 3],
    ['2024-05-20 10:01:00', 2],
    ['2024-05-20 10:02:00', 1],
  ])
})

t.test('6. users with a trait value: the JSON text with its quotes', async (t) => {
  t.same(await run<{ user_id: string }>(usersWithTrait), [{ user_id: 'alice' }])
  t.same(await run(usersWithTrait.replace(`value = '"pro"'`, `value = 'pro'`)), [], "value = 'pro' finds nothing, as the guide says")
})

t.test('properties are readable with visitParamExtract*', async (t) => {
  const rows = await run<{ path: string; amount: number }>(
    `SELECT visitParamExtractString(properties, 'path') AS path, visitParamExtractFloat(properties, 'amount') AS amount
FROM tracking.events FINAL WHERE account_id = 'acc_1' AND user_id = 'alice' ORDER BY timestamp_ms`,
  )
  t.same(rows.map((r) => [r.path, r.amount]), [['', 0], ['/pricing', 0], ['/checkout', 0], ['', 49.5]])
})
