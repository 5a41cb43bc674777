// ClickHouse refuses an INSERT that touches more than `max_partitions_per_insert_block` partitions
// (100 by default, error 252): a batch whose rows span more months than one INSERT may touch is stored
// whole, in every table partitioned by month: events, identifies and retry_ids by event time,
// usage_monthly by receipt time (H26), person_weeks by the month of the event's week, which may be the
// month before (U28).
import t from 'tap'
import { type ClickHouseClient, createClient } from '@clickhouse/client'
import { isTooManyPartitionsPerInsert } from '../../../../schemas/clickhouse/server-error.js'
import { ClickHouseWriter } from './writer.js'
import {
  createTestDatabase,
  makeEvent,
  makeIdentify,
  overriding,
  queryRows,
  testClickHouseConnection,
} from '../../../../test/support/clickhouse-helpers.js'

// The 15th of the n-th month after January 1970, at noon UTC.
const month = (n: number) => Date.UTC(1970, n, 15, 12)
const now = Date.now()

t.test('rows over hundreds of months are all stored', async (t) => {
  const { client, database } = await createTestDatabase({ prefix: 'partitions', t })
  const writer = new ClickHouseWriter(client, database)
  // A history import: 300 events, one per month from 1970-01, a third with a message_id (retry_ids);
  // a replay of old records: 120 events received over 120 months; 150 identifies over 150 months.
  const history = Array.from({ length: 300 }, (_, i) =>
    makeEvent({
      event_id: `h${i}`,
      user_id: 'importer',
      timestamp: month(i),
      received_at: now,
      message_id: i % 3 === 0 ? `m${i}` : null,
    }),
  )
  const replayed = Array.from({ length: 120 }, (_, i) =>
    makeEvent({ event_id: `r${i}`, account_id: 'acc_replayed', timestamp: month(i), received_at: month(i) + 1000 }),
  )
  const identifies = Array.from({ length: 150 }, (_, i) =>
    makeIdentify({ event_id: `i${i}`, user_id: 'importer', timestamp: month(i), received_at: now }),
  )
  t.same(await writer.write({ events: [...history, ...replayed], identifies }), {
    events: 420,
    identifies: 150,
    traits: 0,
  })

  const one = async (query: string) => Number((await queryRows<{ n: string }>(client, query))[0]!.n)
  t.equal(await one(`SELECT count() AS n FROM ${database}.events FINAL`), 420)
  t.equal(
    await one(`SELECT uniqExact(toYYYYMM(timestamp)) AS n FROM ${database}.events`),
    300,
    'one partition per month',
  )
  t.equal(await one(`SELECT count() AS n FROM ${database}.identifies FINAL`), 150)
  t.equal(
    await one(`SELECT uniqExact(event_id) AS n FROM ${database}.retry_ids`),
    100,
    'every message_id is in the H16 lookup table',
  )
  t.equal(
    await one(`SELECT sum(events) AS n FROM ${database}.usage_monthly_view WHERE account_id = 'acc_1'`),
    300,
    'the import counts in the month it was received',
  )
  t.equal(
    await one(
      `SELECT count() AS n FROM ${database}.usage_monthly_view WHERE account_id = 'acc_replayed' AND events = 1`,
    ),
    120,
    'replayed records count in their own receipt months',
  )
  const [user] = await queryRows<{ first_seen_ms: string; last_seen_ms: string }>(
    client,
    `SELECT first_seen_ms, last_seen_ms FROM ${database}.users_view WHERE user_id = 'importer'`,
  )
  t.same(user, { first_seen_ms: String(month(0)), last_seen_ms: String(month(299)) })
})

t.test(
  'a ClickHouse set to fewer partitions per insert: the refused inserts are cut again and every row is stored',
  async (t) => {
    const { database } = await createTestDatabase({ prefix: 'partitions_low', t })
    // The writer's own client, with the server's limit lowered for its queries.
    const client = createClient({
      ...testClickHouseConnection(),
      clickhouse_settings: { max_partitions_per_insert_block: '10' } as Record<string, string>,
    })
    t.teardown(() => client.close())
    const writer = new ClickHouseWriter(client, database)
    const events = Array.from({ length: 60 }, (_, i) =>
      makeEvent({ event_id: `low${i}`, timestamp: month(i), received_at: now }),
    )
    t.same(await writer.write({ events, identifies: [] }), { events: 60, identifies: 0, traits: 0 })
    const [row] = await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.events FINAL`)
    t.equal(Number(row!.n), 60)
  },
)

/** The writer's client, recording each insert into `events` and whether the server refused it for its partitions. */
function countingEventInserts(client: ClickHouseClient) {
  const inserts: Array<{ refused: boolean }> = []
  const insert: ClickHouseClient['insert'] = async (params) => {
    if (!params.table.endsWith('.events')) return client.insert(params)
    try {
      const result = await client.insert(params)
      inserts.push({ refused: false })
      return result
    } catch (err) {
      inserts.push({ refused: isTooManyPartitionsPerInsert(err) })
      throw err
    }
  }
  return { client: overriding(client, 'insert', insert), inserts }
}

// Midnight UTC on the 1st of the n-th month after January 2000 (a Saturday: its week began in 1999).
const first = (n: number) => Date.UTC(2000, n, 1)
const isMonday = (ms: number) => new Date(ms).getUTCDay() === 1
const DAY = 86_400_000
/** The 1st (i even) or the 15th (i odd) of the (i / 2)-th month after January 2000. */
const inMonth = (i: number) => first(Math.floor(i / 2)) + (i % 2) * 14 * DAY

t.test(
  'person_weeks, partitioned by the month of a week that may begin in the month before, is never refused (U28)',
  async (t) => {
    const { client: raw, database } = await createTestDatabase({ prefix: 'partitions_weeks', t })
    const { client, inserts } = countingEventInserts(raw)
    const writer = new ClickHouseWriter(client, database)
    const weekMonths = async (account: string) =>
      Number(
        (
          await queryRows<{ n: string }>(
            raw,
            `SELECT uniqExact(toYYYYMM(week)) AS n FROM ${database}.person_weeks WHERE account_id = '${account}' AND event = ''`,
          )
        )[0]!.n,
      )

    // Events on the 1st and the 15th of 100 consecutive months, the first 1st in a week that began in the
    // month before: 101 months of weeks, which one insert of 100 event months (the server's limit) would
    // have the view write, and be refused.
    const consecutive = Array.from({ length: 200 }, (_, i) =>
      makeEvent({ event_id: `c${i}`, account_id: 'acc_consecutive', timestamp: inMonth(i), received_at: now }),
    )
    t.same(await writer.write({ events: consecutive, identifies: [] }), { events: 200, identifies: 0, traits: 0 })
    t.same(inserts.splice(0), [{ refused: false }, { refused: false }], 'two inserts of 50 months, none refused')
    t.equal(await weekMonths('acc_consecutive'), 101)

    // The limit's worst case: 50 months apart from each other, each with an event in a week that began in
    // the month before and one in a week of its own: 100 months of weeks in one insert, the most the
    // server takes.
    const months: number[] = []
    for (let n = 1; months.length < 50; n++) if (!isMonday(first(n)) && !months.includes(n - 1)) months.push(n)
    const sparse = months.flatMap((n, i) =>
      [first(n), first(n) + 14 * DAY].map((timestamp, j) =>
        makeEvent({ event_id: `s${i}_${j}`, account_id: 'acc_sparse', timestamp, received_at: now }),
      ),
    )
    t.same(await writer.write({ events: sparse, identifies: [] }), { events: 100, identifies: 0, traits: 0 })
    t.same(inserts.splice(0), [{ refused: false }], 'one insert of 50 months, not refused')
    t.equal(await weekMonths('acc_sparse'), 100)
  },
)
