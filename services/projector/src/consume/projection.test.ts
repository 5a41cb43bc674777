import t from 'tap'
import { Codec } from '../../../../schemas/codec.js'
import type { DeadLetterRecord, EventRecord } from '../../../../schemas/records.js'
import { createLogger } from '../../../shared/src/log.js'
import { ClickHouseWriter, ClickHouseWriteError, prepareBatch } from '../clickhouse/writer.js'
import { ProjectionPipeline, type RowBuilding } from './projection.js'
import { WaitAbortedError } from '../../../shared/src/wait-for.js'
import { ManualTimers, settle } from '../../../../test/support/manual-timers.js'

const topics = { events: 'ev', identifies: 'id', accounts: 'ac', dlq: 'dlq' }

async function setup(
  sinkFor: (inserts: Array<{ table: string; values: any[] }>) => any,
  over: { waitForClickHouse?: boolean; stopping?: { aborted: boolean }; rows?: RowBuilding } = {},
) {
  let id = 1
  const codec = new Codec({
    register: async () => ({ id: id++ }),
    getSchema: async () => {
      throw new Error('nope')
    },
  } as any)
  await codec.register(topics)
  const sent: DeadLetterRecord[] = []
  const producer = {
    send: async ({ messages }: any) => {
      for (const m of messages) sent.push((await codec.decode(m.value)).value)
    },
  }
  const inserts: Array<{ table: string; values: any[] }> = []
  // Backoffs run on a clock the test moves (settle), never on real time.
  const timers = new ManualTimers()
  const pipeline = new ProjectionPipeline(
    producer as any,
    codec,
    sinkFor(inserts),
    {
      dlqTopic: 'dlq',
      rows: over.rows ?? 'at-decode',
      retries: 2,
      initialRetryMs: 200,
      maxRetryMs: 10_000,
      waitForClickHouse: over.waitForClickHouse,
      timers,
    },
    undefined,
    createLogger('error', {}, () => undefined),
    over.stopping,
  )
  return { codec, pipeline, sent, inserts, timers }
}

// Records as the pipeline gets them from decode(): rows built (these without a place in the log).
const prepared = (...events: EventRecord[]) => prepareBatch({ events, identifies: [] }).prepared

const event = (i: number, over: Partial<EventRecord> = {}): EventRecord => ({
  event_id: `e${i}`,
  account_id: 'a',
  environment: 'live',
  key_id: 'k',
  event: 'x',
  user_id: 'u',
  user_email: null,
  user_traits: null,
  timestamp: 1_700_000_000_000 + i,
  original_timestamp: null,
  received_at: 1_700_000_000_000,
  sent_at: null,
  timestamp_flagged: false,
  properties: '{}',
  context: '{}',
  ip: null,
  user_agent: null,
  message_id: null,
  ...over,
})

/** A writer over a fake client: the H16 lookup answers `stored`, and each insert's event_ids are kept. */
function tsvWriter(inserts: Array<{ table: string; values: any[] }>, stored: string[] = []) {
  return new ClickHouseWriter(
    {
      query: async () => ({ json: async () => stored.map((event_id) => ({ event_id })) }),
      command: async () => ({}), // the hourly counts' rebuild (U19)
      // The body is TabSeparated text: each line's first field is the event_id column.
      insert: async (q: any) => {
        let text = ''
        for await (const chunk of q.values) text += chunk.toString()
        inserts.push({
          table: q.table,
          values: text
            .split('\n')
            .slice(0, -1)
            .map((line) => ({ event_id: line.split('\t')[0] })),
        })
      },
    } as any,
    'db',
  )
}

t.test(
  'records that cannot be mapped to rows go to the DLQ as they are decoded, with their place in the log; the rest is written',
  async (t) => {
    const { codec, pipeline, sent, inserts } = await setup((inserts) => tsvWriter(inserts))
    const good = [event(1), event(3)]
    const bad = event(2, { timestamp: 9e15 })
    const messages = [good[0]!, bad, good[1]!].map((e, i) => ({
      offset: String(100 + i),
      key: Buffer.from('k'),
      value: codec.encode('Event', e),
    }))
    messages.push({ offset: '103', key: Buffer.from('k'), value: Buffer.from('junk') })
    const { part, dead } = await pipeline.decode('ev', 4, messages as any)
    t.same(
      part.events.map((e) => e.event_id),
      ['e1', 'e3'],
    )
    t.match(dead, [
      {
        topic: 'ev',
        partition: 4,
        offset: '101',
        error_code: 'INVALID_RECORD',
        reason: /^e2: timestamp .* outside the DateTime range/,
      },
      { topic: 'ev', partition: 4, offset: '103', error_code: 'UNKNOWN_SCHEMA' },
    ])
    await pipeline.deadLetters.send(dead)

    const out = await pipeline.writer.write(part)
    t.equal(out.deadLettered, 0)
    t.same(
      out.written.events.map((e) => e.event_id),
      ['e1', 'e3'],
    )
    t.same(
      inserts.map((i) => [i.table, i.values.map((v) => v.event_id)]),
      [['db.events', ['e1', 'e3']]],
      'one insert, without the bad record',
    )
    t.match(sent, [
      {
        topic: 'ev',
        partition: 4,
        offset: '101',
        error_code: 'INVALID_RECORD',
        reason: /^e2: timestamp .* outside the DateTime range/,
      },
      { offset: '103' },
    ])
    t.equal(sent[0]!.key!.toString(), 'k')
    t.same((await codec.decode(sent[0]!.value!)).value.event_id, 'e2', 'the original record bytes')
  },
)

t.test('a batch the server refuses is split to find the record at fault', async (t) => {
  const { pipeline, sent } = await setup(() => ({
    writePrepared: async (b: any) => {
      if (b.events.some((e: { event_id: string }) => e.event_id === 'e2'))
        throw new ClickHouseWriteError('INSERT_REJECTED', 'bad data', { retriable: false })
    },
  }))
  const out = await pipeline.writer.write(prepared(event(1), event(2), event(3)))
  t.same(
    out.written.events.map((e) => e.event_id),
    ['e1', 'e3'],
  )
  t.match(sent, [{ error_code: 'INSERT_REJECTED', offset: 'e2', partition: -1 }])
})

t.test('retriable failures are retried, then thrown so their offsets are not committed', async (t) => {
  let calls = 0
  const { pipeline, timers } = await setup(() => ({
    writePrepared: async () => {
      calls++
      throw new ClickHouseWriteError('INSERT_FAILED', 'down', { retriable: true })
    },
  }))
  await t.rejects(settle(timers, pipeline.writer.write(prepared(event(1)))), { code: 'RETRIES_EXHAUSTED' })
  t.equal(calls, 3)
})

t.test('the live projector waits past the retries while ClickHouse is unreachable, not when it refuses', async (t) => {
  const refused = () =>
    new ClickHouseWriteError('INSERT_FAILED', 'connect ECONNREFUSED 127.0.0.1:18123', {
      retriable: true,
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18123'), { code: 'ECONNREFUSED' }),
    })
  let calls = 0
  const { pipeline, inserts, timers } = await setup(
    (inserts) => ({
      writePrepared: async (b: any) => {
        if (++calls <= 7) throw refused()
        inserts.push({ table: 'events', values: b.events })
      },
    }),
    { waitForClickHouse: true },
  )
  const out = await settle(timers, pipeline.writer.write(prepared(event(1))))
  t.equal(calls, 8, 'three rounds of retries, then success')
  t.equal(out.written.events.length, 1)
  t.equal(inserts.length, 1)

  // A failure that is not about reaching ClickHouse still ends in RETRIES_EXHAUSTED.
  const other = await setup(
    () => ({
      writePrepared: async () => {
        throw new ClickHouseWriteError('INSERT_FAILED', "Code: 60. Table test.events doesn't exist", {
          retriable: true,
          serverCode: 60,
        })
      },
    }),
    { waitForClickHouse: true },
  )
  await t.rejects(settle(other.timers, other.pipeline.writer.write(prepared(event(2)))), { code: 'RETRIES_EXHAUSTED' })

  // Stopping ends the wait.
  const stopping = { aborted: false }
  let n = 0
  const stopped = await setup(
    () => ({
      writePrepared: async () => {
        if (++n === 5) stopping.aborted = true
        throw refused()
      },
    }),
    { waitForClickHouse: true, stopping },
  )
  await t.rejects(settle(stopped.timers, stopped.pipeline.writer.write(prepared(event(3)))), {
    code: 'RETRIES_EXHAUSTED',
  })
})

t.test('a registry that does not answer is waited for; stopping meanwhile dead-letters nothing', async (t) => {
  let id = 1
  let calls = 0
  const registryDown = Object.assign(
    new Error('Confluent_Schema_Registry - Error, status 400: connect ECONNREFUSED 127.0.0.1:18081'),
    { status: 400 },
  )
  const writer = new Codec({
    register: async () => ({ id: id++ }),
    getSchema: async () => {
      throw new Error('unused')
    },
  } as any)
  await writer.register(topics)
  const stopping = new AbortController()
  const reader = new Codec({
    getSchema: async () => {
      calls++
      throw registryDown
    },
  } as any)
  const timers = new ManualTimers()
  const dead: unknown[] = []
  const pipeline = new ProjectionPipeline(
    {
      send: async (m: any) => {
        dead.push(m)
      },
    } as any,
    reader,
    { writePrepared: async () => undefined },
    { dlqTopic: 'dlq', rows: 'at-decode', retries: 2, initialRetryMs: 200, maxRetryMs: 5_000, timers },
    undefined,
    createLogger('error', {}, () => undefined),
    stopping.signal,
  )
  const messages = [{ offset: '0', key: null, value: writer.encode('Event', event(1)) }]
  const decoding = pipeline.decode('ev', 0, messages as any).catch((e) => e)
  // Two waits between attempts pass; the stop comes while the pipeline waits after the third.
  for (let waits = 1; waits <= 3; waits++) {
    while (timers.pending === 0) await new Promise((resolve) => setImmediate(resolve))
    if (waits < 3) timers.advance(timers.nextDueIn)
  }
  stopping.abort()
  const err = await decoding
  t.type(err, WaitAbortedError, 'decode gives up only because the projector stops, with no dead letter')
  t.equal(calls, 3, 'the registry was asked again and again')
  t.same(dead, [])
})

t.test(
  'rows built after the lookup (a replay over stored rows, H69): a record that cannot be mapped is dead-lettered at write',
  async (t) => {
    const stored: string[] = []
    const writerFor = (inserts: Array<{ table: string; values: any[] }>) => tsvWriter(inserts, stored)
    const { codec, pipeline, sent, inserts } = await setup(writerFor, { rows: 'after-lookup' })
    const msgs = (from: number, records: EventRecord[]) =>
      records.map((e, i) => ({ offset: String(from + i), key: null, value: codec.encode('Event', e) }))

    // A replay over rows already there: every record is a stored message (H16).
    stored.push('e1', 'e2')
    const first = await pipeline.decode(
      'ev',
      0,
      msgs(0, [event(1, { message_id: 'm1' }), event(2, { message_id: 'm2' })]) as any,
    )
    t.ok(
      first.part.events.every((p) => p.rowChunk === null),
      'rows left for after the lookup',
    )
    await pipeline.writer.write(first.part)
    t.same(inserts, [], 'both dropped')

    const second = await pipeline.decode(
      'ev',
      0,
      msgs(2, [event(3, { message_id: 'm3' }), event(4, { message_id: 'm4', timestamp: 9e15 })]) as any,
    )
    t.same(second.dead, [], 'not mapped at decode, so not yet found invalid')
    t.ok(
      second.part.events.every((p) => p.rowChunk === null),
      'rows left for after the lookup',
    )
    const out = await pipeline.writer.write(second.part)
    t.equal(out.deadLettered, 1)
    t.same(
      out.written.events.map((e) => e.event_id),
      ['e3'],
    )
    t.same(
      inserts.map((i) => [i.table, i.values.map((v) => v.event_id)]),
      [['db.events', ['e3']]],
    )
    t.match(sent, [
      {
        topic: 'ev',
        partition: 0,
        offset: '3',
        error_code: 'INVALID_RECORD',
        reason: /^e4: timestamp .* outside the DateTime range/,
      },
    ])
    t.same((await codec.decode(sent[0]!.value!)).value.event_id, 'e4', 'the original record bytes')

    // The live projector's choice holds whatever its last write dropped.
    const live = await setup(writerFor, { rows: 'at-decode' })
    const replayed = await live.pipeline.decode('ev', 0, msgs(0, [event(1, { message_id: 'm1' })]) as any)
    await live.pipeline.writer.write(replayed.part)
    t.same(live.inserts, [], 'a stored record, dropped')
    const third = await live.pipeline.decode('ev', 0, msgs(4, [event(5, { message_id: 'm5' })]) as any)
    t.not(third.part.events[0]!.rowChunk, null, 'the live projector builds rows at decode')
  },
)

t.test('decode stops at the record that brings its rows, trait rows included, to maxRows (H40)', async (t) => {
  const { codec, pipeline } = await setup(() => ({ writePrepared: async () => undefined }))
  const traits = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])))
  // 1 + 3, 1 + 0, 1 + 5, 1 + 0 rows.
  const records = [event(1, { user_traits: traits(3) }), event(2), event(3, { user_traits: traits(5) }), event(4)]
  const messages = records.map((e, i) => ({ offset: String(i), key: null, value: codec.encode('Event', e) }))
  const first = await pipeline.decode('ev', 0, messages as any, 6)
  t.equal(first.taken, 3, 'rows 4, 5, then 11: it stops after the third record')
  t.same(
    first.part.events.map((e) => e.event_id),
    ['e1', 'e2', 'e3'],
  )
  const rest = await pipeline.decode('ev', 0, messages.slice(first.taken) as any, 6)
  t.same([rest.taken, rest.part.events.map((e) => e.event_id)], [1, ['e4']])
  t.equal((await pipeline.decode('ev', 0, messages as any)).taken, 4, 'no bound: all of them')
  // The general path, rows not built yet (after the H16 lookup): counted from the traits.
  const afterLookup = await setup(() => ({ writePrepared: async () => undefined }), { rows: 'after-lookup' })
  t.equal(
    (await afterLookup.pipeline.decode('ev', 0, messages as any, 6)).taken,
    3,
    'the same cut for records whose rows are built later',
  )
})
