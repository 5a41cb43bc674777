// The consume loop the projector and the replay share (H70), with a fake pipeline and kafkajs's
// eachBatch payload: which offsets it resolves, what it tells its caller, and when it stops.
import t from 'tap'
import { createLogger } from '../../../shared/src/log.js'
import { InsertBatcher } from './batcher.js'
import { ConsumeLoop, type ConsumeLoopHooks, type QueuedSlice } from './consume-loop.js'

// Decodes nothing into rows; takes `maxRows` messages at a time, as the pipeline cuts a fetch (H40).
const pipeline = {
  decode: async (_topic: string, _partition: number, messages: unknown[], maxRows: number) => ({
    part: { events: [], identifies: [] },
    dead: [],
    taken: Math.min(maxRows, messages.length),
  }),
}

function run(hooks: Partial<ConsumeLoopHooks>, over: { running?: () => boolean } = {}) {
  const resolvedOffsets: string[] = []
  const slices: QueuedSlice[] = []
  const batcher = new InsertBatcher(async () => undefined, { maxRows: 100, maxWaitMs: 1 })
  const loop = new ConsumeLoop(
    pipeline as any,
    batcher,
    { maxRows: 2, maxPendingRows: 100, heartbeatIntervalMs: 60_000 },
    {
      deadLetters: async () => undefined,
      queued: () => undefined,
      resolved: (s) => slices.push(s),
      ...hooks,
    },
    createLogger('error', {}, () => undefined),
  )
  // Offsets 10-14, then a transaction marker at 15: the batch's last offset.
  const messages = [10, 11, 12, 13, 14].map((o) => ({ offset: String(o), key: null, value: Buffer.from('x') }))
  const payload = {
    batch: { topic: 'ev', partition: 3, highWatermark: '16', messages, lastOffset: () => '15' },
    resolveOffset: (o: string) => resolvedOffsets.push(o),
    heartbeat: async () => undefined,
    isRunning: over.running ?? (() => true),
    isStale: () => false,
  }
  return { done: loop.eachBatch(payload as any), resolvedOffsets, slices, loop }
}

t.test('slices of maxRows rows: each resolved as queued, the last at the batch end (markers included)', async (t) => {
  const { done, resolvedOffsets, slices } = run({ epoch: () => 7 })
  await done
  t.same(resolvedOffsets, ['11', '13', '15'])
  t.same(
    slices.map((s) => [s.topic, s.partition, s.lastOffset, s.highWatermark, s.records, s.epoch]),
    [
      ['ev', 3, '11', '16', 2, 7],
      ['ev', 3, '13', '16', 2, 7],
      ['ev', 3, '15', '16', 1, 7],
    ],
  )
})

t.test("a replay's selection: records outside its range are skipped, a batch outside it is left alone", async (t) => {
  const some = run({ select: (_topic, _partition, m) => m.filter((x) => x.offset >= '11' && x.offset <= '12') })
  await some.done
  t.same(some.resolvedOffsets, ['15'], 'its two records in one slice, resolved past the whole batch')
  t.same(
    some.slices.map((s) => s.records),
    [2],
  )

  const none = run({ select: () => [] })
  await none.done
  t.same(none.resolvedOffsets, ['15'], 'nothing of it to project: past it all the same')
  t.same(
    none.slices.map((s) => s.records),
    [0],
  )

  const done = run({ select: () => null })
  await done.done
  t.same([done.resolvedOffsets, done.slices], [[], []], 'a partition that is done: not even resolved')
})

t.test('a halted loop (a failed write) takes no further slice; the drain waits for the batch', async (t) => {
  let halted = false
  const { done, resolvedOffsets, loop } = run({
    queued: () => {
      halted = true
    },
    halted: () => halted,
  })
  const idle = loop.idle()
  let idleFirst = true
  void idle.then(() => (idleFirst = resolvedOffsets.length === 0))
  await done
  await idle
  t.same(resolvedOffsets, ['11'], 'the first slice only; the rest is read again from the committed offsets')
  t.notOk(idleFirst, 'idle resolved after the batch')
  const stopped = run({}, { running: () => false })
  await stopped.done
  t.same(stopped.resolvedOffsets, [], 'a batch fetched once stopping began is left for the next member')
})
