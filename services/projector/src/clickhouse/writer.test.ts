import t from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import {
  classify,
  lookupChunks,
  prepareBatch,
  ClickHouseWriteError,
  ClickHouseWriter,
  retryCandidates,
} from './writer.js'
import { IdFilter } from './id-filter.js'
import { unbuilt } from './prepared.js'
import { makeEvent, makeIdentify } from '../../../../test/support/clickhouse-helpers.js'
import { MONTHS_PER_INSERT } from '../../../shared/src/month-groups.js'

interface InsertCall {
  table: string
  format: string
  columns: string[]
  /** The body's lines, read from the streamed values. */
  values: string[]
}

function fakeClient(
  fail?: (table: string, values: string[]) => unknown,
  stored: string[] = [],
): { client: ClickHouseClient; calls: InsertCall[] } {
  const calls: InsertCall[] = []
  const client = {
    // The H16 lookup: these ids are stored already.
    async query() {
      return { json: async () => stored.map((event_id) => ({ event_id })) }
    },
    // The hourly counts' rebuild (U19), after the inserts: not one of the inserts these tests read.
    async command() {
      return {}
    },
    async insert(params: { table: string; format: string; columns: string[]; values: AsyncIterable<Buffer> }) {
      let text = ''
      for await (const chunk of params.values) text += chunk.toString()
      const values = text.split('\n').slice(0, -1)
      calls.push({ table: params.table, format: params.format, columns: params.columns, values })
      const err = fail?.(params.table, values)
      if (err) throw err
      return {}
    },
  } as unknown as ClickHouseClient
  return { client, calls }
}

t.test('one TabSeparated insert per table, empty tables skipped', async (t) => {
  const { client, calls } = fakeClient()
  const w = new ClickHouseWriter(client, 'analytics')
  const stats = await w.write({
    events: [makeEvent({ user_traits: '{"plan":"pro"}' }), makeEvent()],
    identifies: [makeIdentify({ traits: '{"a":1,"b":2}' })],
  })
  t.same(stats, { events: 2, identifies: 1, traits: 3 })
  // trait rows first: a retry after a partial write drops stored records, trait rows included (H16)
  t.same(
    calls.map((c) => [c.table, c.values.length, c.format]),
    [
      ['analytics.user_traits', 3, 'TabSeparated'],
      ['analytics.events', 2, 'TabSeparated'],
      ['analytics.identifies', 1, 'TabSeparated'],
    ],
  )
  for (const c of calls)
    for (const line of c.values) t.equal(line.split('\t').length, c.columns.length, `${c.table}: one field per column`)
  calls.length = 0
  await w.write({ events: [], identifies: [] })
  t.equal(calls.length, 0)
})

t.test('the database name is validated', async (t) => {
  t.throws(() => new ClickHouseWriter(fakeClient().client, 'x; DROP'))
})

t.test('an unmappable record fails the batch before any insert, naming it', async (t) => {
  const { client, calls } = fakeClient()
  const w = new ClickHouseWriter(client, 'analytics')
  const err = await w
    .write({
      events: [makeEvent(), makeEvent({ event_id: 'bad', timestamp: -5 })],
      identifies: [makeIdentify({ event_id: 'bad2', traits: '{x' })],
    })
    .catch((e: unknown) => e)
  t.ok(err instanceof ClickHouseWriteError)
  const e = err as ClickHouseWriteError
  t.equal(e.code, 'INVALID_RECORD')
  t.equal(e.retriable, false)
  t.same(
    e.invalid.map((r) => [r.kind, r.event_id]),
    [
      ['event', 'bad'],
      ['identify', 'bad2'],
    ],
  )
  t.equal(calls.length, 0)
  t.equal(prepareBatch({ events: [makeEvent()], identifies: [] }).invalid.length, 0)
})

t.test('server and network failures are classified', async (t) => {
  const parse = new Error('Code: 27, e.displayText() = DB::Exception: Cannot parse input, e.what() = DB::Exception')
  const { client } = fakeClient((table) => (table.endsWith('identifies') ? parse : undefined))
  const err = (await new ClickHouseWriter(client, 'db')
    .write({ events: [makeEvent()], identifies: [makeIdentify()] })
    .catch((e: unknown) => e)) as ClickHouseWriteError
  t.equal(err.code, 'INSERT_REJECTED')
  t.equal(err.retriable, false)
  t.equal(err.table, 'identifies')
  t.equal(err.serverCode, 27)
  t.equal(err.cause, parse)

  // 252 is also the server falling behind on merges: that stays retriable; the partitions case is the data's (H27).
  const tooMany = classify(
    new Error(
      'Code: 252, e.displayText() = DB::Exception: Too many parts (300). Merges are processing significantly slower than inserts',
    ),
    'events',
  )
  t.match(tooMany, { code: 'INSERT_FAILED', retriable: true, serverCode: 252 })
  t.match(classify(tooManyPartitions(100), 'events'), { code: 'INSERT_REJECTED', retriable: false, serverCode: 252 })
  const net = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18123'), { code: 'ECONNREFUSED' })
  t.match(classify(net), { code: 'INSERT_FAILED', retriable: true, serverCode: undefined })
  t.match(classify(new TypeError('x is not a function')), { code: 'INSERT_FAILED', retriable: false })
})

t.test(
  'a record whose text has an unpaired surrogate is invalid (dead-lettered), the batch is not inserted',
  async (t) => {
    const { client, calls } = fakeClient()
    const err = (await new ClickHouseWriter(client, 'db')
      .write({ events: [makeEvent(), makeEvent({ event_id: 'lone', properties: '{"a":"\ud800"}' })], identifies: [] })
      .catch((e: unknown) => e)) as ClickHouseWriteError
    t.equal(err.code, 'INVALID_RECORD')
    t.same(
      err.invalid.map((r) => r.event_id),
      ['lone'],
    )
    t.equal(calls.length, 0)
  },
)

t.test('retryCandidates: repeats in a batch are dropped, first occurrences looked up (H16)', async (t) => {
  const r = (id: string, m: string | null = `m-${id}`) => ({ event_id: id, message_id: m })
  const batch = [r('a'), r('b'), r('a'), r('c', null), r('c', null), r('b')]
  const { drop, lookup } = retryCandidates(batch)
  t.same([...drop], [batch[2], batch[5]], 'later records of an id, in batch order')
  t.same(lookup, [batch[0], batch[1]], 'every first occurrence with a message_id')
})

t.test('retryCandidates with an id filter: only ids it may have seen are looked up', async (t) => {
  const r = (id: string, m: string | null = `m-${id}`) => ({ event_id: id, message_id: m })
  const seen = new IdFilter(1000)
  seen.checkAndAdd('stored')
  const batch = [r('new'), r('stored'), r('new'), r('other'), r('stored'), r('plain', null)]
  const { drop, lookup } = retryCandidates(batch, seen)
  t.same(lookup, [batch[1]], 'the id the filter holds, once; ids it never saw are not stored')
  t.same([...drop], [batch[2], batch[4]], 'repeats in the batch, also of ids first seen in this batch')
  t.ok(seen.mightContain('new') && seen.mightContain('other'), 'the batch ids are added before the insert')
  t.notOk(seen.mightContain('plain'), 'records without a message_id are never looked up, so never added')
  // A second batch: everything of the first may be stored now.
  const again = retryCandidates([r('new'), r('other')], seen)
  t.same(
    again.lookup.map((x) => x.event_id),
    ['new', 'other'],
  )
  t.equal(again.drop.size, 0)
})

t.test('rows not built at decode are built after the lookup, for the records it keeps only', async (t) => {
  // 'stored' is a retry of a stored message (H16): dropped, so its rows, which could not be mapped, are never built.
  const { client, calls } = fakeClient(undefined, ['stored'])
  const w = new ClickHouseWriter(client, 'db')
  const batch = {
    events: [
      unbuilt(makeEvent({ event_id: 'new', message_id: 'm1', user_traits: '{"plan":"pro"}' }), null),
      unbuilt(makeEvent({ event_id: 'stored', message_id: 'm2', timestamp: -5 }), null),
    ],
    identifies: [unbuilt(makeIdentify({ event_id: 'i1' }), null)],
  }
  t.same(await w.writePrepared(batch), { events: 1, identifies: 1, traits: 1 })
  t.same(
    calls.map((c) => [c.table, c.values.map((v) => v.split('\t')[c.table.endsWith('user_traits') ? 7 : 0])]),
    [
      ['db.user_traits', ['new']],
      ['db.events', ['new']],
      ['db.identifies', ['i1']],
    ],
  )
  t.equal(batch.events[1]!.rowChunk, null, 'the dropped retry was not built')

  // A kept record that cannot be mapped: nothing is inserted, and the error names it.
  calls.length = 0
  const bad = {
    events: [
      unbuilt(makeEvent({ event_id: 'ok' }), null),
      unbuilt(makeEvent({ event_id: 'bad', received_at: -1 }), null),
    ],
    identifies: [],
  }
  const err = (await w.writePrepared(bad).catch((e: unknown) => e)) as ClickHouseWriteError
  t.match(err, { code: 'INVALID_RECORD', retriable: false })
  t.same(
    err.invalid.map((r) => r.event_id),
    ['bad'],
  )
  t.equal(calls.length, 0)
  t.not(bad.events[0]!.rowChunk, null, 'the good record keeps its rows for the write without the bad one')
})

t.test('lookups are cut by id count and by text size, never empty', async (t) => {
  const r = (id: string) => ({ event_id: id, account_id: 'acct' })
  t.same(lookupChunks([]), [])
  const many = Array.from({ length: 120_001 }, (_, i) => r(`e${i}`))
  t.same(
    lookupChunks(many).map((c) => c.length),
    [50_000, 50_000, 20_001],
  )
  t.same(lookupChunks(many).flat(), many, 'every id once, in order')
  // Ids of 100,000 characters: about 60 per lookup stay under the size cap.
  const long = Array.from({ length: 100 }, (_, i) => r(`${i}`.padEnd(100_000, 'x')))
  const chunks = lookupChunks(long)
  t.ok(chunks.length >= 2 && chunks.every((c) => c.length > 0), `${chunks.map((c) => c.length)}`)
  t.same(chunks.flat(), long)
  const huge = [r('y'.repeat(10 * 1024 * 1024)), r('z')]
  t.same(
    lookupChunks(huge).map((c) => c.length),
    [1, 1],
    'an id larger than the cap is looked up alone',
  )
})

// The months an insert's rows touch in the partitioned tables (schemas/clickhouse/): event months
// (the `timestamp` column) and receipt months (`received_at`, usage_monthly's), 'YYYY-MM' each.
const monthsOf = (c: InsertCall, column: 'timestamp' | 'received_at') =>
  new Set(c.values.map((v) => v.split('\t')[c.columns.indexOf(column)]!.slice(0, 7))).size
const month = (n: number) => Date.UTC(1970, n, 15, 12)
// What ClickHouse 26.9 answers an insert over max_partitions_per_insert_block, as @clickhouse/client throws it.
const tooManyPartitions = (limit: number) =>
  Object.assign(
    new Error(
      `Too many partitions for single INSERT block (more than ${limit}). The limit is controlled by 'max_partitions_per_insert_block' setting.`,
    ),
    { code: '252', type: 'TOO_MANY_PARTS' },
  )
/** A server that refuses inserts touching more than `limit` event or receipt months, as current ClickHouse does. */
const partitionLimit = (limit: number) => (table: string, values: string[]) => {
  if (table.endsWith('user_traits')) return undefined
  const c = {
    table,
    format: '',
    columns: ['timestamp', 'received_at'],
    values: values.map((v) => {
      const f = v.split('\t')
      return `${f[5]}\t${f[8]}`
    }),
  }
  return monthsOf(c, 'timestamp') > limit || monthsOf(c, 'received_at') > limit ? tooManyPartitions(limit) : undefined
}

t.test(
  'a batch over more months than one insert may touch is written in inserts of at most MONTHS_PER_INSERT months (H26, U28)',
  async (t) => {
    const { client, calls } = fakeClient(partitionLimit(100))
    const w = new ClickHouseWriter(client, 'db')
    // Two requests of 100 events, one per month from 1970-01; identifies over 150 months; a replay's
    // events received over 120 months.
    const events = Array.from({ length: 200 }, (_, i) => makeEvent({ event_id: `e${i}`, timestamp: month(i) }))
    const replayed = Array.from({ length: 120 }, (_, i) =>
      makeEvent({ event_id: `r${i}`, received_at: month(i), timestamp: month(i) - 1000 }),
    )
    const identifies = Array.from({ length: 150 }, (_, i) => makeIdentify({ event_id: `i${i}`, timestamp: month(i) }))
    t.same(await w.write({ events: [...events, ...replayed], identifies }), { events: 320, identifies: 150, traits: 0 })
    const inserts = calls.filter((c) => !c.table.endsWith('user_traits'))
    t.same(
      inserts.map((c) => [
        c.table,
        monthsOf(c, 'timestamp') <= MONTHS_PER_INSERT && monthsOf(c, 'received_at') <= MONTHS_PER_INSERT,
      ]),
      [
        // By event month: 0-48 and 49-97 (their 50 receipt months each), 98-147, 148-197, 198-199.
        ...Array.from({ length: 5 }, () => ['db.events', true]),
        ...Array.from({ length: 150 / MONTHS_PER_INSERT }, () => ['db.identifies', true]),
      ],
    )
    t.equal(
      inserts.reduce((n, c) => n + c.values.length, 0),
      470,
      'every row once',
    )

    // The common case: one insert per table, as before.
    calls.length = 0
    await w.write({ events: [makeEvent(), makeEvent({ timestamp: month(650) })], identifies: [makeIdentify()] })
    t.same(
      calls.map((c) => c.table),
      ['db.events', 'db.identifies'],
    )
  },
)

t.test(
  'a server that takes fewer partitions per insert: the refused group is cut again, and later batches start there',
  async (t) => {
    const { client, calls } = fakeClient(partitionLimit(10))
    const w = new ClickHouseWriter(client, 'db')
    const events = Array.from({ length: 60 }, (_, i) => makeEvent({ event_id: `e${i}`, timestamp: month(i) }))
    t.same(await w.write({ events, identifies: [] }), { events: 60, identifies: 0, traits: 0 })
    const stored = calls.filter((c) => monthsOf(c, 'timestamp') <= 10)
    t.same(
      stored.flatMap((c) => c.values.map((v) => v.split('\t')[0])).sort(),
      events.map((e) => e.event_id).sort(),
      'every row stored, by inserts the server took',
    )
    const refusedFirst = calls.length - stored.length
    t.ok(refusedFirst > 0)

    calls.length = 0
    await w.write({ events: events.map((e) => ({ ...e, event_id: `again-${e.event_id}` })), identifies: [] })
    t.ok(
      calls.length - calls.filter((c) => monthsOf(c, 'timestamp') <= 10).length < refusedFirst,
      'fewer refusals once the writer has learnt the limit',
    )
  },
)

t.test('a partitions refusal of rows of one month is about the data: INSERT_REJECTED, not retried (H27)', async (t) => {
  const { client } = fakeClient((table) => (table.endsWith('events') ? tooManyPartitions(0) : undefined))
  const err = (await new ClickHouseWriter(client, 'db')
    .write({ events: [makeEvent(), makeEvent()], identifies: [] })
    .catch((e: unknown) => e)) as ClickHouseWriteError
  t.match(err, { code: 'INSERT_REJECTED', retriable: false, serverCode: 252, table: 'events' })
})
