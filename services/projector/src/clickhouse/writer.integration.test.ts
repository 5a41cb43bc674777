// Against the real ClickHouse (CLICKHOUSE_URL, default http://127.0.0.1:18123):
// projecting the same records twice never shows them twice (A5).
import t from 'tap'
import { ClickHouseWriter } from './writer.js'
import {
  createTestDatabase,
  makeEvent,
  makeIdentify,
  optimizeFinal,
  queryRows,
} from '../../../../test/support/clickhouse-helpers.js'
import { accountUsage, monthlyLiveUsage } from '../../../shared/src/usage/usage-query.js'
import { migrate } from '../../../../schemas/clickhouse/migrate.js'

const db = await createTestDatabase({ prefix: 'writer', t })
const { client, database } = db
const writer = new ClickHouseWriter(client, database)

const T0 = Date.UTC(2024, 4, 31, 23, 59, 59, 987) // last ms of May, UTC
const ms = (n: number) => T0 + n

const events = [
  makeEvent({
    event_id: 'ev-1',
    user_id: 'alice',
    event: 'signed_up',
    timestamp: ms(0),
    received_at: ms(5),
    user_email: 'alice@old.example',
    user_traits: '{"plan":"free","company":"Acme"}',
  }),
  makeEvent({
    event_id: 'ev-2',
    user_id: 'alice',
    event: 'page_viewed',
    timestamp: ms(1000),
    received_at: ms(1001),
    properties: '{"path":"/a"}',
  }),
  makeEvent({
    event_id: 'ev-3',
    user_id: 'bob',
    event: 'page_viewed',
    timestamp: ms(2000),
    received_at: ms(2001),
    original_timestamp: ms(-60000),
    sent_at: ms(1999),
    timestamp_flagged: true,
    ip: '10.0.0.1',
    user_agent: "Mozilla/5.0 'quoted' \\ back",
    message_id: 'm-3',
  }),
  makeEvent({
    event_id: 'ev-4',
    user_id: 'carol',
    event: 'page_viewed',
    environment: 'test',
    timestamp: ms(3000),
    received_at: ms(3001),
  }),
  makeEvent({
    event_id: 'ev-5',
    account_id: 'acc_2',
    user_id: 'dave',
    event: 'page_viewed',
    timestamp: ms(-10),
    received_at: ms(-5),
  }),
]
const identifies = [
  // Partial identifies: each names some keys; the latest event time wins per key.
  makeIdentify({
    event_id: 'id-1',
    user_id: 'alice',
    timestamp: ms(500),
    received_at: ms(9000),
    traits: '{"plan":"pro","seats":5}',
    email: 'alice@new.example',
  }),
  makeIdentify({
    event_id: 'id-2',
    user_id: 'alice',
    timestamp: ms(400),
    received_at: ms(9500),
    traits: '{"plan":"enterprise","role":"admin"}',
  }),
  makeIdentify({
    event_id: 'id-3',
    user_id: 'erin',
    timestamp: ms(700),
    received_at: ms(701),
    traits: '{"email":"erin@example.com"}',
  }),
]

t.test('migrate twice is idempotent', async (t) => {
  const second = await migrate(client, database)
  t.equal(second.applied.length, 0)
  t.ok(second.skipped.length >= 5)
  const [{ n }] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.schema_migrations`)
  t.equal(Number(n), second.skipped.length, 'each migration recorded once')
})

t.test('writing the same batch twice shows each record once', async (t) => {
  await writer.write({ events, identifies })
  await writer.write({ events, identifies }) // replay
  // A replay that arrives in a different batch shape and order.
  await writer.write({ events: [events[2]!, events[0]!], identifies: [identifies[1]!] })

  const [raw] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.events`)
  t.ok(Number(raw!.n) >= 10, 'duplicates exist physically before merge')

  const [dedup] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.events_dedup`)
  t.equal(Number(dedup!.n), 5, 'events_dedup counts each event once')
  const [final] = await queryRows<{ n: string }>(
    client,
    `SELECT count() AS n FROM ${database}.events FINAL WHERE account_id = 'acc_1'`,
  )
  t.equal(Number(final!.n), 4, 'FROM events FINAL is exact too')
  const [uniq] = await queryRows<{ n: string }>(client, `SELECT uniqExact(event_id) AS n FROM ${database}.events`)
  t.equal(Number(uniq!.n), 5)
  const [ids] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.identifies_dedup`)
  t.equal(Number(ids!.n), 3)
})

t.test('millisecond precision and every column survive', async (t) => {
  const [row] = await queryRows<Record<string, string | number>>(
    client,
    `SELECT * FROM ${database}.events_dedup WHERE event_id = 'ev-3'`,
  )
  t.match(row, {
    event_id: 'ev-3',
    account_id: 'acc_1',
    environment: 'live',
    event: 'page_viewed',
    user_id: 'bob',
    timestamp: '2024-06-01 00:00:01',
    received_at: '2024-06-01 00:00:01',
    timestamp_flagged: 1,
    ip: '10.0.0.1',
    user_agent: "Mozilla/5.0 'quoted' \\ back",
    message_id: 'm-3',
  })
  t.equal(Number(row!.timestamp_ms), ms(2000))
  t.equal(Number(row!.timestamp_ms) % 1000, 987, 'the millisecond part is kept')
  t.equal(Number(row!.received_at_ms), ms(2001))
  t.equal(Number(row!.original_timestamp_ms), ms(-60000))
  t.equal(Number(row!.sent_at_ms), ms(1999))
  const [first] = await queryRows<{ ts: string }>(
    client,
    `SELECT toString(timestamp) AS ts FROM ${database}.events_dedup WHERE event_id = 'ev-1'`,
  )
  t.same(first, { ts: '2024-05-31 23:59:59' })
  const parts = await queryRows<{ partition: string }>(
    client,
    `SELECT DISTINCT partition FROM system.parts WHERE database = '${database}' AND table = 'events' AND active ORDER BY partition`,
  )
  t.same(
    parts.map((p) => p.partition),
    ['202405', '202406'],
    'partitioned by the UTC month of the event time',
  )
})

t.test('users: first/last seen and latest email, replay-proof', async (t) => {
  const users = await queryRows<{
    user_id: string
    environment: string
    email: string
    first_seen_ms: string
    last_seen_ms: string
    first_seen: string
  }>(
    client,
    `SELECT user_id, environment, email, first_seen_ms, last_seen_ms, first_seen FROM ${database}.users_view WHERE account_id = 'acc_1' ORDER BY user_id, environment`,
  )
  t.same(
    users.map((u) => [u.user_id, u.environment, u.email, Number(u.first_seen_ms), Number(u.last_seen_ms)]),
    [
      ['alice', 'live', 'alice@new.example', ms(0), ms(1000)],
      ['bob', 'live', '', ms(2000), ms(2000)],
      ['carol', 'test', '', ms(3000), ms(3000)],
      ['erin', 'live', 'erin@example.com', ms(700), ms(700)],
    ],
  )
  t.equal(users[0]!.first_seen, '2024-05-31 23:59:59')
})

t.test('traits: partial identifies merge, latest event time wins per key (H10)', async (t) => {
  const rows = await queryRows<{ trait_key: string; value: string; set_at_ms: string; source_event_id: string }>(
    client,
    `SELECT trait_key, value, set_at_ms, source_event_id FROM ${database}.user_traits_latest
     WHERE account_id = 'acc_1' AND environment = 'live' AND user_id = 'alice' ORDER BY trait_key`,
  )
  t.same(
    rows.map((r) => [r.trait_key, r.value, Number(r.set_at_ms), r.source_event_id]),
    [
      ['company', '"Acme"', ms(0), 'ev-1'], // from the event's user.traits
      ['plan', '"pro"', ms(500), 'id-1'], // id-2 arrived later but is older by event time
      ['role', '"admin"', ms(400), 'id-2'],
      ['seats', '5', ms(500), 'id-1'],
    ],
  )
  const [{ n }] = (await queryRows<{ n: string }>(
    client,
    `SELECT count() AS n FROM ${database}.user_traits_latest`,
  )) as [{ n: string }]
  t.equal(Number(n), 5, 'alice has 4 traits, erin 1')

  // A newer partial identify touches only the key it names.
  await writer.write({
    events: [],
    identifies: [
      makeIdentify({ user_id: 'alice', timestamp: ms(5000), received_at: ms(5001), traits: '{"plan":"team"}' }),
    ],
  })
  const after = await queryRows<{ trait_key: string; value: string }>(
    client,
    `SELECT trait_key, value FROM ${database}.user_traits_latest WHERE account_id = 'acc_1' AND user_id = 'alice' ORDER BY trait_key`,
  )
  t.same(
    after.map((r) => [r.trait_key, r.value]),
    [
      ['company', '"Acme"'],
      ['plan', '"team"'],
      ['role', '"admin"'],
      ['seats', '5'],
    ],
  )
})

t.test('usage counts each event once, by month of receipt and environment', async (t) => {
  // ev-1 and acc_2's ev-5 were received in May (UTC); ev-2, ev-3 and test ev-4 in June.
  t.same([...(await monthlyLiveUsage(client, database, '2024-05')).entries()].sort(), [
    ['acc_1', 1],
    ['acc_2', 1],
  ])
  t.same([...(await monthlyLiveUsage(client, database, '2024-06')).entries()], [['acc_1', 2]])
  t.same(await accountUsage(client, database, 'acc_1', '2024-06'), { live: 2, test: 1, emails: 0 })
  t.same(await accountUsage(client, database, 'acc_1', '2024-07'), { live: 0, test: 0, emails: 0 })
  const view = await queryRows<{
    account_id: string
    month: string
    environment: string
    events: string
    emails: string
  }>(
    client,
    `SELECT account_id, month, environment, events, emails FROM ${database}.usage_monthly_view ORDER BY account_id, month, environment`,
  )
  t.same(
    view.map((r) => [r.account_id, r.month, r.environment, Number(r.events), Number(r.emails)]),
    [
      ['acc_1', '2024-05-01', 'live', 1, 0],
      ['acc_1', '2024-06-01', 'live', 2, 0],
      ['acc_1', '2024-06-01', 'test', 1, 0],
      ['acc_2', '2024-05-01', 'live', 1, 0],
    ],
  )
})

t.test('after merges the answers are the same', async (t) => {
  await optimizeFinal(client, database, ['events', 'identifies', 'users', 'user_traits', 'usage_monthly'])
  const [merged] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.events`)
  t.equal(Number(merged!.n), 5, 'the duplicates are gone physically')
  const [dedup] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.events_dedup`)
  t.equal(Number(dedup!.n), 5)
  t.same(await accountUsage(client, database, 'acc_1', '2024-06'), { live: 2, test: 1, emails: 0 })
  const [alice] = await queryRows<{ email: string; first_seen_ms: string }>(
    client,
    `SELECT email, first_seen_ms FROM ${database}.users_view WHERE account_id = 'acc_1' AND user_id = 'alice'`,
  )
  t.same(alice && [alice.email, Number(alice.first_seen_ms)], ['alice@new.example', ms(0)])
})

t.test(
  'text with tabs, newlines, CR, backslashes, quotes, NUL and astral characters is stored as sent (TabSeparated)',
  async (t) => {
    const awkward = 'tab\there\nnew\r\nline \\ back \\t not-an-escape "q" \'s\' \u0000 \u{1F600} é'
    const props = JSON.stringify({ text: awkward, path: 'C:\\dir\\file' })
    await writer.write({
      events: [
        makeEvent({
          event_id: 'ev-text',
          user_id: 'tess',
          event: 'odd\tname',
          properties: props,
          user_agent: awkward,
          user_traits: JSON.stringify({ 'k\ty': awkward }),
        }),
      ],
      identifies: [
        makeIdentify({
          event_id: 'id-text',
          user_id: 'tess',
          traits: JSON.stringify({ note: awkward }),
          context: props,
        }),
      ],
    })
    const [e] = await queryRows<{ event: string; properties: string; user_agent: string }>(
      client,
      `SELECT event, properties, user_agent FROM ${database}.events FINAL WHERE event_id = 'ev-text'`,
    )
    t.same(e, { event: 'odd\tname', properties: props, user_agent: awkward })
    const [i] = await queryRows<{ traits: string; context: string }>(
      client,
      `SELECT traits, context FROM ${database}.identifies FINAL WHERE event_id = 'id-text'`,
    )
    t.same(i, { traits: JSON.stringify({ note: awkward }), context: props })
    const traits = await queryRows<{ trait_key: string; value: string }>(
      client,
      `SELECT trait_key, value FROM ${database}.user_traits FINAL WHERE user_id = 'tess' ORDER BY trait_key`,
    )
    t.same(traits, [
      { trait_key: 'k\ty', value: JSON.stringify(awkward) },
      { trait_key: 'note', value: JSON.stringify(awkward) },
    ])
  },
)
