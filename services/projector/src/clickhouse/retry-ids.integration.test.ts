// Against the real ClickHouse: the H16 retry lookup reads retry_ids (006_retry_ids.sql), which
// materialized views fill from events and identifies. A database that held rows before that
// migration gets them copied in by it, so a retry of a message stored before the upgrade is still
// recognised; and rows without a message_id, never looked up, are not copied.
import t from 'tap'
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ClickHouseWriter, type DroppedDuplicate } from './writer.js'
import { eventRow, identifyRow } from './rows.js'
import { createTestDatabase, makeEvent, makeIdentify, queryRows } from '../../../../test/support/clickhouse-helpers.js'
import { MIGRATIONS_DIR, migrate } from '../../../../schemas/clickhouse/migrate.js'

const db = await createTestDatabase({ prefix: 'retry_ids', migrate: false, t })
const { client, database } = db
const T0 = Date.UTC(2024, 6, 1, 12)
const count = async (sql: string) => Number((await queryRows<{ n: string }>(client, sql))[0]!.n)

t.test('ids stored before the retry_ids migration are copied in, and their retries dropped (H16)', async (t) => {
  // The schema as it was before 006: the migrations up to 005 only.
  const before = await mkdtemp(join(tmpdir(), 'migrations-'))
  t.teardown(() => rm(before, { recursive: true, force: true }))
  for (const f of await readdir(MIGRATIONS_DIR))
    if (/^00[1-5]_.*\.sql$/.test(f)) await cp(join(MIGRATIONS_DIR, f), join(before, f))
  await migrate(client, database, { dir: before })
  // Rows an older projector wrote, in the columns the old schema has (anonymous_id came with 008).
  const stored = makeEvent({
    event_id: 'old-e',
    account_id: 'acc_old',
    user_id: 'u',
    message_id: 'm-old',
    timestamp: T0,
    received_at: T0,
  })
  const plain = makeEvent({
    event_id: 'old-plain',
    account_id: 'acc_old',
    user_id: 'u',
    message_id: null,
    timestamp: T0,
    received_at: T0,
  })
  const storedIdentify = makeIdentify({
    event_id: 'old-i',
    account_id: 'acc_old',
    user_id: 'u',
    message_id: 'mi-old',
    timestamp: T0,
    received_at: T0,
  })
  const withoutAnonymousId = <T extends { anonymous_id: string }>(row: T) => {
    const { anonymous_id: _, ...old } = row
    return old
  }
  await client.insert({
    table: `${database}.events`,
    values: [stored, plain].map((r) => withoutAnonymousId(eventRow(r))),
    format: 'JSONEachRow',
  })
  await client.insert({
    table: `${database}.identifies`,
    values: [withoutAnonymousId(identifyRow(storedIdentify))],
    format: 'JSONEachRow',
  })

  const result = await migrate(client, database)
  t.same(result.applied.map((m) => m.file)[0], '006_retry_ids.sql', '006 is the first migration applied after 005')
  const ids = await queryRows<{ source: string; event_id: string }>(
    client,
    `SELECT source, event_id FROM ${database}.retry_ids ORDER BY event_id`,
  )
  t.same(
    ids.map((r) => [r.source, r.event_id]),
    [
      ['events', 'old-e'],
      ['identifies', 'old-i'],
    ],
    'ids with a message_id copied; the one without is not',
  )

  const dropped: DroppedDuplicate[] = []
  const writer = new ClickHouseWriter(client, database, { onDuplicates: (d) => dropped.push(...d) })
  // Client retries of the old messages: same event_ids, another time (so another sort key).
  await writer.write({
    events: [{ ...stored, timestamp: T0 + 60_000, received_at: T0 + 60_000 }],
    identifies: [{ ...storedIdentify, timestamp: T0 + 60_000, received_at: T0 + 60_000 }],
  })
  t.same(dropped.map((d) => d.event_id).sort(), ['old-e', 'old-i'], 'both retries recognised')
  t.equal(
    await count(`SELECT count() AS n FROM ${database}.events FINAL WHERE event_id = 'old-e'`),
    1,
    'the event is stored once',
  )
  t.equal(
    await count(`SELECT count() AS n FROM ${database}.identifies FINAL WHERE event_id = 'old-i'`),
    1,
    'the identify is stored once',
  )
})

t.test('new rows reach retry_ids through the views, and a retry outside the window is not a retry', async (t) => {
  const dropped: DroppedDuplicate[] = []
  const writer = new ClickHouseWriter(client, database, { onDuplicates: (d) => dropped.push(...d) })
  const first = makeEvent({
    event_id: 'new-e',
    account_id: 'acc_new',
    user_id: 'u',
    message_id: 'm-new',
    timestamp: T0,
    received_at: T0,
  })
  await writer.write({ events: [first], identifies: [] })
  t.equal(
    await count(`SELECT count() AS n FROM ${database}.retry_ids WHERE event_id = 'new-e' AND source = 'events'`),
    1,
    'the view copied the id',
  )
  await writer.write({
    events: [{ ...first, timestamp: T0 + 47 * 3600_000, received_at: T0 + 47 * 3600_000 }],
    identifies: [],
  })
  t.same(
    dropped.map((d) => d.event_id),
    ['new-e'],
    'a retry 47 hours later is dropped',
  )
  await writer.write({
    events: [{ ...first, timestamp: T0 + 49 * 3600_000, received_at: T0 + 49 * 3600_000 }],
    identifies: [],
  })
  t.equal(dropped.length, 1, 'a record 49 hours later is past the window (H16): written')
  t.equal(
    await count(`SELECT count() AS n FROM ${database}.events FINAL WHERE event_id = 'new-e'`),
    2,
    'the first write and the one past the window',
  )
  // The same event_id in identifies is another record kind: the lookup is per source table.
  await writer.write({
    events: [],
    identifies: [
      makeIdentify({
        event_id: 'new-e',
        account_id: 'acc_new',
        user_id: 'u',
        message_id: 'm-new',
        timestamp: T0,
        received_at: T0,
      }),
    ],
  })
  t.equal(
    await count(`SELECT count() AS n FROM ${database}.identifies FINAL WHERE event_id = 'new-e'`),
    1,
    'an identify is not taken for a retry of an event',
  )
})
