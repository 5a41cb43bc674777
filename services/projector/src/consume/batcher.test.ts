// The insert batcher without servers: when rows are written, and that each caller's promise
// settles with the write that held its rows.
import t from 'tap'
import { InsertBatcher, type ProjectionBatch } from './batcher.js'

const rows = (n: number, from = 0): ProjectionBatch => ({ events: Array.from({ length: n }, (_, i) => ({ id: from + i }) as any), identifies: [] })

/** A flush function whose writes end when the test says so. */
function writes() {
  const seen: Array<{ rows: number; end: (err?: Error) => void }> = []
  const flushFn = (b: ProjectionBatch) => new Promise<void>((resolve, reject) => {
    seen.push({ rows: b.events.length + b.identifies.length, end: (err) => (err ? reject(err) : resolve()) })
  })
  return { seen, flushFn }
}

const tick = () => new Promise((r) => setImmediate(r))

t.test('rows under maxRows wait for maxWaitMs; maxRows writes at once', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 40 })
  const a = b.add(rows(3))
  await tick()
  t.equal(seen.length, 0, 'nothing written before maxWaitMs')
  await new Promise((r) => setTimeout(r, 80))
  t.same(seen.map((w) => w.rows), [3], 'written after maxWaitMs')
  seen[0]!.end()
  await a
  const big = b.add(rows(10))
  await tick()
  t.same(seen.map((w) => w.rows), [3, 10], 'a full insert is written at once')
  seen[1]!.end()
  await big
})

t.test('a caller settles with the write that held its rows, also when it fails', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 2, maxWaitMs: 60_000 })
  let settled = false
  const first = b.add(rows(2)).then(() => { settled = true })
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
  { name: 'with minRowsAfterWrite, a tail that reaches it is written as soon as the write before it ends', min: 3, tail: 4, atOnce: true },
  { name: 'with minRowsAfterWrite, a smaller tail still waits for maxWaitMs', min: 3, tail: 2, atOnce: false },
  { name: 'without minRowsAfterWrite, a tail waits for maxWaitMs', min: undefined, tail: 9, atOnce: false },
]) {
  t.test(c.name, async (t) => {
    const { seen, flushFn } = writes()
    const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 60, minRowsAfterWrite: c.min })
    const first = b.add(rows(10))
    await tick()
    const tail = b.add(rows(c.tail, 10))
    await tick()
    t.equal(seen.length, 1, 'one write at a time')
    seen[0]!.end()
    await first
    await tick()
    t.same(seen.map((w) => w.rows), c.atOnce ? [10, c.tail] : [10], c.atOnce ? 'the tail went when the first write ended' : 'the tail waits')
    await new Promise((r) => setTimeout(r, 120))
    t.same(seen.map((w) => w.rows), [10, c.tail], 'written by maxWaitMs at the latest')
    seen[1]!.end()
    await tail
  })
}

t.test('whenRoom waits until the rows not yet written are at most max', async (t) => {
  const { seen, flushFn } = writes()
  const b = new InsertBatcher(flushFn, { maxRows: 10, maxWaitMs: 60_000 })
  b.add(rows(10))
  b.add(rows(10, 10)).catch(() => undefined)
  const tail = b.add(rows(5, 20))
  t.equal(b.pendingRows, 25)
  let room = false
  const r = b.whenRoom(12).then(() => { room = true })
  await tick()
  t.equal(room, false, '25 rows unwritten')
  seen[0]!.end()
  await tick()
  t.equal(room, false, '15 rows unwritten')
  seen[1]!.end(new Error('failed')) // a failed write's rows are through their write too
  await r
  t.equal(b.pendingRows, 5)
  await t.resolves(b.whenRoom(5), 'at once when there is room')
  b.flush()
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
  afterSecond.then(() => { done = true }, () => undefined)
  await tick()
  seen[0]!.end(new Error('first failed'))
  await t.rejects(afterFirst, /first failed/, 'the buffer was empty: the last queued write')
  await tick()
  t.equal(done, false, 'the second rows are still buffered')
  b.flush()
  await tick()
  seen[1]!.end()
  await second
  await t.resolves(afterSecond)
})
