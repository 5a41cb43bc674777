import { availableParallelism } from 'node:os'
import t from 'tap'
import { loadProjectorConfig } from '../config.js'
import { mergeProgress, mergeSummaries, splitRanges } from './parts.js'
import type { PartitionRange } from './plan.js'
import type { ReplaySummary } from './progress.js'

const range = (topic: string, partition: number, records: number, start = 0n): PartitionRange => ({
  topic,
  partition,
  start,
  end: start + BigInt(records),
})
const records = (share: PartitionRange[]) => share.reduce((n, r) => n + Number(r.end - r.start), 0)
const names = (share: PartitionRange[]) => share.map((r) => `${r.topic}/${r.partition}`)

t.test('splitRanges: every range in exactly one share, the shares about equal, each in the plan order', async (t) => {
  const plan = [
    range('ev', 0, 100),
    range('ev', 1, 90),
    range('ev', 2, 10),
    range('ev', 3, 0, 7n),
    range('id', 0, 50),
    range('id', 1, 40),
  ]
  const shares = splitRanges(plan, 2)
  t.equal(shares.length, 2)
  t.same(
    shares.flatMap(names).sort(),
    plan.map((r) => `${r.topic}/${r.partition}`).sort(),
    'each range once, the empty one too (its end goes to the summary)',
  )
  t.same(shares.map(records), [150, 140], 'largest first, each to the smaller share')
  t.same(names(shares[0]!), ['ev/0', 'ev/2', 'ev/3', 'id/1'], 'in the plan order; the empty range in the first share')
  t.same(names(shares[1]!), ['ev/1', 'id/0'])
})

t.test('splitRanges: never more shares than partitions with records, and one share for one part', async (t) => {
  const plan = [range('ev', 0, 5), range('ev', 1, 0), range('ev', 2, 3)]
  t.same(splitRanges(plan, 8).map(names), [['ev/0', 'ev/1'], ['ev/2']], 'two partitions to read: two shares')
  t.same(splitRanges(plan, 1).map(names), [['ev/0', 'ev/1', 'ev/2']])
  t.same(splitRanges([range('ev', 0, 0)], 4).map(names), [['ev/0']], 'nothing to read: one share, for the summary')
})

t.test('mergeProgress: counts and rates add up; the ETA is the slowest part', async (t) => {
  const merged = mergeProgress([
    { done: 100, remaining: 50, elapsedMs: 2000, rate: 50, etaMs: 1000 },
    { done: 80, remaining: 80, elapsedMs: 2100, rate: 40, etaMs: 2000 },
  ])
  t.same(merged, { done: 180, remaining: 130, elapsedMs: 2100, rate: 90, etaMs: 2000 })
  t.equal(
    mergeProgress([
      { done: 0, remaining: 10, elapsedMs: 0, rate: 0, etaMs: null },
      { done: 5, remaining: 5, elapsedMs: 1000, rate: 5, etaMs: 1000 },
    ]).etaMs,
    null,
    'a part that has not moved yet: no ETA',
  )
  t.equal(
    mergeProgress([
      { done: 10, remaining: 0, elapsedMs: 1000, rate: 0, etaMs: 0 },
      { done: 5, remaining: 5, elapsedMs: 1000, rate: 5 },
    ]).etaMs,
    1000,
    'a part done adds nothing; one without an ETA of its own: remaining / rate',
  )
})

t.test('mergeSummaries: one replay of every part, its rate over the whole replay time', async (t) => {
  const part = (topic: string, n: number, ends: Record<string, string>): ReplaySummary => ({
    records: n,
    byTopic: { [topic]: n },
    events: n - 1,
    identifies: 0,
    deadLettered: 1,
    durationMs: 900,
    rate: n / 0.9,
    ends,
  })
  t.same(mergeSummaries([part('ev', 600, { 'ev/0': '600' }), part('ev', 400, { 'ev/1': '400' })], 2000), {
    records: 1000,
    byTopic: { ev: 1000 },
    events: 998,
    identifies: 0,
    deadLettered: 2,
    durationMs: 2000,
    rate: 500,
    ends: { 'ev/0': '600', 'ev/1': '400' },
  })
})

t.test('REPLAY_WORKERS: two threads unless the machine has one core; 1 to 64', async (t) => {
  t.equal(loadProjectorConfig({}).replayWorkers, Math.min(2, availableParallelism()))
  t.equal(loadProjectorConfig({ REPLAY_WORKERS: '1' }).replayWorkers, 1)
  t.throws(() => loadProjectorConfig({ REPLAY_WORKERS: '0' }), { message: /REPLAY_WORKERS/ })
  t.throws(() => loadProjectorConfig({ REPLAY_WORKERS: '65' }), { message: /REPLAY_WORKERS/ })
})
