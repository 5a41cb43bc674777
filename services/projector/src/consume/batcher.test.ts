// The insert batcher without servers: when rows are written, and that each caller's promise
// settles with the write that held its rows.
import t from 'tap'
import { InsertBatcher } from './batcher.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import { ManualTimers } from '../../../../test/support/manual-timers.js'

const rows = (n: number, from = 0): PreparedBatch => ({
  events: Array.from({ length: n }, (_, i) => ({ id: from + i }) as any),
  identifies: [],
})

/** A flush function whose writes end when the test says so. */
function writes() {
  const seen: Array<{ rows: number; end: (err?: Error) => void }> = []
  const flushFn = (b: PreparedBatch) =>
    new Promise<void>((resolve, reject) => {
      seen.push({ rows: b.events.length + b.identifies.length, end: (err) => (err ? reject(err) : resolve()) })
    })
  return { seen, flushFn }
}

const tick = () => new Promise((r) => setImmediate(r))

t.test('rows under maxRows wait for maxWaitMs; maxRows writes at once', async (t) => {
  const { seen, flushFn } = writes()
  const timers = new ManualTimers()
  const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 40, timers })
  const a = b.add(rows(3))
  await tick()
  timers.advance(39)
  await tick()
  t.equal(seen.length, 0, 'nothing written before maxWaitMs')
  timers.advance(1)
  await tick()
  t.same(
    seen.map((w) => w.rows),
    [3],
    'written at maxWaitMs',
  )
  seen[0]!.end()
  await a
  const big = b.add(rows(10))
  await tick()
  t.same(
    seen.map((w) => w.rows),
    [3, 10],
    'a full insert is written at once',
  )
  seen[1]!.end()
  await big
})

t.test('a caller settles with the write that held its rows, also when it fails', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 2, maxWaitMs: 60_000 })
  let settled = false
  const first = b.add(rows(2)).then(() => {
    settled = true
  })
  await tick()
  t.equal(settled, false, 'not before ClickHouse answered')
  seen[0]!.end()
  await first
  t.equal(settled, true)
  const second = b.add(rows(2))
  await tick()
  seen[1]!.end(new Error('ClickHouse said no'))
  await t.rejects(second, /ClickHouse said no/)
})

// Rows that arrive while a write runs (a fetch's other partitions): written as soon as it ends when
// minRowsAfterWrite is set and they reach it, else after maxWaitMs as before.
for (const c of [
  {
    name: 'with minRowsAfterWrite, a tail that reaches it is written as soon as the write before it ends',
    min: 3,
    tail: 4,
    atOnce: true,
  },
  { name: 'with minRowsAfterWrite, a smaller tail still waits for maxWaitMs', min: 3, tail: 2, atOnce: false },
  { name: 'without minRowsAfterWrite, a tail waits for maxWaitMs', min: undefined, tail: 9, atOnce: false },
]) {
  t.test(c.name, async (t) => {
    const { seen, flushFn } = writes()
    const timers = new ManualTimers()
    const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 60, minRowsAfterWrite: c.min, timers })
    const first = b.add(rows(10))
    await tick()
    const tail = b.add(rows(c.tail, 10))
    await tick()
    t.equal(seen.length, 1, 'one write at a time')
    seen[0]!.end()
    await first
    await tick()
    t.same(
      seen.map((w) => w.rows),
      c.atOnce ? [10, c.tail] : [10],
      c.atOnce ? 'the tail went when the first write ended' : 'the tail waits',
    )
    timers.advance(60)
    await tick()
    t.same(
      seen.map((w) => w.rows),
      [10, c.tail],
      'written by maxWaitMs at the latest',
    )
    seen[1]!.end()
    await tail
  })
}

t.test('whenRoom waits until the rows not yet written are at most max', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 60_000 })
  void b.add(rows(10))
  b.add(rows(10, 10)).catch(() => undefined)
  const tail = b.add(rows(5, 20))
  t.equal(b.pendingRows, 25)
  let room = false
  const r = b.whenRoom(12).then(() => {
    room = true
  })
  await tick()
  t.equal(room, false, '25 rows unwritten')
  seen[0]!.end()
  await tick()
  t.equal(room, false, '15 rows unwritten')
  seen[1]!.end(new Error('failed')) // a failed write's rows are through their write too
  await r
  t.equal(b.pendingRows, 5)
  await t.resolves(b.whenRoom(5), 'at once when there is room')
  void b.flush()
  await tick()
  seen[2]!.end()
  await tail
  t.equal(b.pendingRows, 0)
})

t.test('settled: with the write of the last row added so far', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 60_000 })
  await t.resolves(b.settled(), 'nothing added: at once')
  b.add(rows(10)).catch(() => undefined)
  const afterFirst = b.settled()
  const second = b.add(rows(3, 10))
  const afterSecond = b.settled()
  let done = false
  afterSecond.then(
    () => {
      done = true
    },
    () => undefined,
  )
  await tick()
  seen[0]!.end(new Error('first failed'))
  await t.rejects(afterFirst, /first failed/, 'the buffer was empty: the last queued write')
  await tick()
  t.equal(done, false, 'the second rows are still buffered')
  void b.flush()
  await tick()
  seen[1]!.end()
  await second
  await t.resolves(afterSecond)
})

// H40: sizes are rows in all tables. A record with thousands of trait keys (written before ingest
// capped them) made one insert of maxRows records hold thousands of times maxRows rows.
const traitLines = (n: number) => Buffer.from('t\tx\n'.repeat(n))
const identifyWithTraits = (id: number, traits: number) =>
  ({
    event_id: `i${id}`,
    rowChunk: Buffer.from('row\n'),
    rowStart: 0,
    rowEnd: 4,
    traitChunk: traitLines(traits),
    traitStart: 0,
    traitEnd: 4 * traits,
    record: null,
  }) as any
/** Rows a write holds, counted in the bytes it was given: one line per row. */
const linesIn = (b: PreparedBatch) =>
  [...b.events, ...b.identifies].reduce(
    (n, p: any) =>
      n + 1 + (p.traitChunk ? p.traitChunk.subarray(p.traitStart, p.traitEnd).toString().split('\n').length - 1 : 0),
    0,
  )

t.test(
  'an insert holds at most maxRows rows, trait rows included, or one record that alone has more (H40)',
  async (t) => {
    const held: number[] = []
    const b = new InsertBatcher(
      async (batch) => {
        held.push(linesIn(batch))
      },
      { maxRows: 5_000, maxWaitMs: 60_000 },
    )
    // One fetch of old records with 3,000 traits each, then one record larger than maxRows.
    const part: PreparedBatch = {
      events: [],
      identifies: Array.from({ length: 5 }, (_, i) => identifyWithTraits(i, 3_000)),
    }
    const first = b.add(part)
    t.equal(b.pendingRows, 5 * 3_001, 'pending rows count the trait rows')
    const huge = b.add({ events: [], identifies: [identifyWithTraits(9, 7_000)] })
    await b.flush()
    await Promise.all([first, huge])
    t.same(held, [3_001, 3_001, 3_001, 3_001, 3_001, 7_001], 'cut between records; a record is never split')
    t.same(b.peaks, { pendingRows: 5 * 3_001 + 7_001, insertRows: 7_001 })
  },
)

t.test('a part cut across writes settles with all of them: a failure in an earlier one fails it', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 4, maxWaitMs: 60_000 })
  const p = b.add({ events: [], identifies: [identifyWithTraits(1, 2), identifyWithTraits(2, 2)] })
  p.catch(() => undefined)
  await tick()
  t.same(
    seen.map((w) => w.rows),
    [1],
    'the first record was written alone',
  )
  void b.flush()
  seen[0]!.end(new Error('first write failed'))
  await tick()
  seen[1]!.end()
  await t.rejects(p, /first write failed/)
})

t.test('rows of records not built yet are counted from their traits', async (t) => {
  const held: number[] = []
  const b = new InsertBatcher(
    async (batch) => {
      held.push(batch.identifies.length)
    },
    { maxRows: 10, maxWaitMs: 60_000 },
  )
  const unbuiltIdentify = (n: number) =>
    ({
      event_id: 'u',
      rowChunk: null,
      traitChunk: null,
      record: { traits: JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))) },
    }) as any
  const p = b.add({ events: [], identifies: [unbuiltIdentify(6), unbuiltIdentify(6)] })
  t.equal(b.pendingRows, 14)
  await b.flush()
  await p
  t.same(held, [1, 1], 'two records of 7 rows each do not share an insert of 10')
})
