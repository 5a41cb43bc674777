// Against the real ClickHouse: a write that fails part way (one table's insert refused) and is
// then retried leaves every row of the batch stored: events, identifies and trait rows, also for
// records with a message_id, whose retry the writer de-duplicates (H27, A5). The failure
// is real: the table is renamed away for the first attempt and back for the retry. Also the
// duplicate report (H16) and 1970 times at the edge of DateTime.
import t from 'tap'
import { ClickHouseWriter, type DroppedDuplicate } from './writer.js'
import { createTestDatabase, makeEvent, makeIdentify, queryRows } from '../../../../test/support/clickhouse-helpers.js'

const db = await createTestDatabase({ prefix: 'writer_partial', t })
const { client, database } = db
const dropped: DroppedDuplicate[] = []
const writer = new ClickHouseWriter(client, database, { onDuplicates: (d) => dropped.push(...d) })

const T0 = Date.UTC(2024, 6, 1, 12)
const count = async (sql: string) => Number((await queryRows<{ n: string }>(client, sql))[0]!.n)

for (const table of ['user_traits', 'events', 'identifies']) {
  t.test(`the ${table} insert fails once: the retry writes everything`, async (t) => {
    const user = `u_${table}`
    // Records with a message_id are left out for the table that is away: its insert, not the
    // duplicate lookup or a materialized view of it, is what fails.
    const mid = (m: string, own: string) => (table === own ? null : m)
    const batch = {
      events: [
        makeEvent({
          event_id: `e1-${table}`,
          user_id: user,
          message_id: mid('m1', 'events'),
          timestamp: T0,
          received_at: T0,
          user_traits: '{"plan":"pro"}',
        }),
        makeEvent({
          event_id: `e2-${table}`,
          user_id: user,
          timestamp: T0 + 1,
          received_at: T0 + 1,
          user_traits: '{"seats":3}',
        }),
      ],
      identifies: [
        makeIdentify({
          event_id: `i1-${table}`,
          user_id: user,
          message_id: mid('m2', 'identifies'),
          timestamp: T0 + 2,
          received_at: T0 + 2,
          traits: '{"role":"admin"}',
        }),
      ],
    }
    await client.command({ query: `RENAME TABLE ${database}.${table} TO ${database}.${table}_away` })
    let renamedBack = false
    const back = async () => {
      if (!renamedBack)
        await client.command({ query: `RENAME TABLE ${database}.${table}_away TO ${database}.${table}` })
      renamedBack = true
    }
    t.teardown(back)
    await t.rejects(writer.write(batch), { code: 'INSERT_FAILED', retriable: true }, 'the first attempt fails')
    await back()
    await writer.write(batch)
    t.equal(await count(`SELECT count() AS n FROM ${database}.events FINAL WHERE user_id = '${user}'`), 2, 'events')
    t.equal(
      await count(`SELECT count() AS n FROM ${database}.identifies FINAL WHERE user_id = '${user}'`),
      1,
      'identifies',
    )
    const traits = await queryRows<{ trait_key: string; value: string }>(
      client,
      `SELECT trait_key, value FROM ${database}.user_traits_latest WHERE user_id = '${user}' ORDER BY trait_key`,
    )
    t.same(
      traits.map((r) => [r.trait_key, r.value]),
      [
        ['plan', '"pro"'],
        ['role', '"admin"'],
        ['seats', '3'],
      ],
      'trait rows of every record',
    )
  })
}

t.test('dropped duplicates are reported once the write succeeds (H16)', async (t) => {
  dropped.length = 0
  const first = makeEvent({
    event_id: 'dup-1',
    account_id: 'acc_dup',
    user_id: 'u',
    message_id: 'md',
    timestamp: T0,
    received_at: T0,
  })
  await writer.write({ events: [first], identifies: [] })
  t.same(dropped, [], 'nothing dropped on the first write')
  // A client retry of the same message_id: same event_id, another receipt time.
  const retry = { ...first, timestamp: T0 + 5000, received_at: T0 + 5000 }
  const inBatch = { ...first, timestamp: T0 + 6000, received_at: T0 + 6000 }
  const id = makeIdentify({
    event_id: 'dup-i',
    account_id: 'acc_dup',
    message_id: 'mi',
    timestamp: T0,
    received_at: T0,
  })
  await writer.write({ events: [], identifies: [id] })
  await writer.write({ events: [retry, inBatch], identifies: [{ ...id, received_at: T0 + 1 }] })
  t.same(
    dropped.map((d) => [d.kind, d.event_id, d.account_id, d.message_id]),
    [
      ['event', 'dup-1', 'acc_dup', 'md'],
      ['event', 'dup-1', 'acc_dup', 'md'],
      ['identify', 'dup-i', 'acc_dup', 'mi'],
    ],
  )
  t.equal(
    await count(`SELECT count() AS n FROM ${database}.events FINAL WHERE account_id = 'acc_dup'`),
    1,
    'stored once (H16)',
  )
})

t.test('times at the start of DateTime are stored, and a retry near the epoch is still found (H16)', async (t) => {
  dropped.length = 0
  const epoch = makeEvent({
    event_id: 'epoch-1',
    account_id: 'acc_epoch',
    message_id: 'me',
    timestamp: 0,
    received_at: T0,
  })
  await writer.write({ events: [epoch], identifies: [] })
  await writer.write({ events: [{ ...epoch, received_at: T0 + 1 }], identifies: [] })
  const rows = await queryRows<{ ts: string; ms: string }>(
    client,
    `SELECT toUInt32(timestamp) AS ts, timestamp_ms AS ms FROM ${database}.events WHERE account_id = 'acc_epoch'`,
  )
  t.same(
    rows.map((r) => [Number(r.ts), Number(r.ms)]),
    [[0, 0]],
    'one row, at the epoch',
  )
  t.equal(dropped.length, 1, 'the retry was recognised')
})
