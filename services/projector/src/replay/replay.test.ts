import t from 'tap'
import { rangesFor, planReplay, totalRecords } from './plan.js'
import { parseReplayArgs } from './args.js'
import {
  formatProgress,
  formatSummary,
  formatDuration,
  progressOf,
  trimSamples,
  type ProgressSample,
} from './progress.js'

const marks = [
  { partition: 1, low: 5n, high: 20n },
  { partition: 0, low: 0n, high: 10n },
]

t.test('ranges: from the beginning, by time, by offsets, from positions', async (t) => {
  t.same(rangesFor('ev', marks, { kind: 'beginning' }), [
    { topic: 'ev', partition: 0, start: 0n, end: 10n },
    { topic: 'ev', partition: 1, start: 5n, end: 20n },
  ])
  t.same(
    rangesFor(
      'ev',
      marks,
      { kind: 'timestamp', ms: 1 },
      new Map([
        [0, 7n],
        [1, 20n],
      ]),
    ).map((r) => [r.start, r.end]),
    [
      [7n, 10n],
      [20n, 20n],
    ],
  )
  t.same(
    rangesFor('ev', marks, { kind: 'offsets', partition: 1, from: 2n, to: 8n }).map((r) => [r.start, r.end]),
    [
      [10n, 10n],
      [5n, 9n],
    ],
    'clamped to the low watermark; other partitions empty',
  )
  t.same(
    rangesFor('ev', marks, { kind: 'offsets', partition: 1, from: 6n, to: 99n }).map((r) => [r.start, r.end])[1],
    [6n, 20n],
    'clamped to the captured end',
  )
  t.same(
    rangesFor('ev', marks, { kind: 'positions', starts: { 'ev/0': '4' } }).map((r) => [r.start, r.end]),
    [
      [4n, 10n],
      [20n, 20n],
    ],
  )
  t.throws(() => rangesFor('ev', marks, { kind: 'offsets', partition: 3, from: 0n }), { code: 'INVALID_REPLAY' })
  t.equal(totalRecords(rangesFor('ev', marks, { kind: 'beginning' })), 25)
})

t.test('planReplay asks the admin for watermarks and offsets by time', async (t) => {
  const calls: string[] = []
  const admin = {
    fetchTopicOffsets: async (topic: string) => {
      calls.push(`offsets ${topic}`)
      return [{ partition: 0, offset: '10', high: '10', low: '0' }]
    },
    fetchTopicOffsetsByTimestamp: async (topic: string, ts?: number) => {
      calls.push(`time ${topic} ${ts}`)
      return [{ partition: 0, offset: '3' }]
    },
  }
  t.same(await planReplay(admin, ['a', 'b'], { kind: 'timestamp', ms: 42 }), [
    { topic: 'a', partition: 0, start: 3n, end: 10n },
    { topic: 'b', partition: 0, start: 3n, end: 10n },
  ])
  t.same(calls, ['offsets a', 'time a 42', 'offsets b', 'time b 42'])
  await t.rejects(planReplay(admin, ['a', 'b'], { kind: 'offsets', partition: 0, from: 0n }), {
    code: 'INVALID_REPLAY',
  })
})

t.test('command-line options', async (t) => {
  t.match(parseReplayArgs([]), {
    topics: ['events', 'identifies'],
    from: { kind: 'beginning' },
    target: 'live',
    swap: false,
    dlq: true,
  })
  t.match(parseReplayArgs(['--topic', 'events', '--from-timestamp', '2025-03-01T00:00:00Z']), {
    topics: ['events'],
    from: { kind: 'timestamp', ms: Date.parse('2025-03-01T00:00:00Z') },
  })
  t.same(parseReplayArgs(['--topic', 'identifies', '--partition', '2', '--from-offset', '10', '--to-offset', '20']), {
    topics: ['identifies'],
    from: { kind: 'offsets', partition: 2, from: 10n, to: 20n },
    target: 'live',
    swap: false,
    database: undefined,
    dlq: true,
    json: false,
  })
  t.match(parseReplayArgs(['--target', 'fresh', '--swap', '--database', 'x_replay', '--no-dlq']), {
    target: 'fresh',
    swap: true,
    database: 'x_replay',
    dlq: false,
  })
  t.equal(parseReplayArgs(['--help']), 'help')
  t.match(parseReplayArgs(['--metrics-port', '9465']), { metricsPort: 9465 })
  t.notOk('metricsPort' in (parseReplayArgs([]) as object), 'no metrics server unless asked')
  t.match(parseReplayArgs(['--workers', '3']), { workers: 3 })
  t.notOk('workers' in (parseReplayArgs([]) as object), 'threads from REPLAY_WORKERS unless asked')
  for (const bad of [
    ['--workers', '0'],
    ['--workers', '65'],
    ['--workers', 'two'],
    ['--metrics-port', 'x'],
    ['--metrics-port', '70000'],
    ['--topic', 'accounts'],
    ['--partition', '0', '--from-offset', '1'],
    ['--topic', 'events', '--partition', '0'],
    ['--topic', 'events', '--partition', '0', '--from-offset', '5', '--to-offset', '4'],
    ['--from-beginning', '--from-timestamp', '2025-01-01'],
    ['--from-timestamp', 'yesterday'],
    ['--swap'],
    ['--target', 'elsewhere'],
    ['--target', 'fresh', '--database', 'bad-name'],
    ['--unknown'],
  ])
    t.throws(() => parseReplayArgs(bad), { code: 'USAGE' }, bad.join(' '))
})

t.test('progress and summary lines', async (t) => {
  t.equal(formatDuration(5_400), '5s')
  t.equal(formatDuration(125_000), '2m05s')
  t.equal(formatDuration(3_900_000), '1h05m')
  t.equal(
    formatProgress({ done: 12_000, remaining: 24_000, elapsedMs: 3000, rate: 4000 }),
    'replay     3s  12,000 done  4,000 rec/s  lag 24,000  ETA 6s',
  )
  t.match(formatProgress({ done: 0, remaining: 5, elapsedMs: 1000, rate: 0 }), /ETA \?$/)
  t.equal(
    formatSummary({
      records: 1500,
      byTopic: { 'tracking.events.v1': 1000, 'tracking.identifies.v1': 500 },
      events: 998,
      identifies: 500,
      deadLettered: 2,
      durationMs: 1500,
      rate: 1000,
      ends: {},
    }),
    'replay done: 1,500 records in 1.5s (1,000 rec/s)\n  per topic: tracking.events.v1=1,000, tracking.identifies.v1=500\n  written: 998 events, 500 identifies; dead-lettered: 2',
  )
})

t.test('progress: the rate and ETA follow the recent pace, and a 2-second run shows a rate', async (t) => {
  const at = (s: number, done: number, remaining: number): ProgressSample => ({
    atMs: 1_000_000 + s * 1000,
    done,
    remaining,
  })
  // bench/HISTORY.md: a 2-second run that wrote 18,635 records showed 0 rec/s.
  const short = progressOf([at(0, 0, 18_640), at(1, 9_000, 9_640), at(2, 18_635, 0)])
  t.equal(Math.round(short.rate), 9_318, 'records per second since the start')
  t.equal(short.etaMs, 0, 'nothing left: ETA 0')
  t.match(formatProgress(short), /9,318 rec\/s .* ETA 0s$/)

  t.same(
    progressOf([at(0, 0, 100)]),
    { done: 0, remaining: 100, elapsedMs: 0, rate: 0, etaMs: null },
    'nothing measured yet',
  )
  t.match(formatProgress(progressOf([at(0, 0, 100)])), /ETA \?$/)

  // A steady 1,000 offsets/s for 30 s, of which 10% are transaction markers (900 records/s).
  const steady = Array.from({ length: 31 }, (_, s) => at(s, 900 * s, 100_000 - 1000 * s))
  const p = progressOf(steady)
  t.equal(p.elapsedMs, 30_000)
  t.equal(Math.round(p.rate), 900)
  t.equal(Math.round(p.etaMs!), 70_000, 'remaining offsets over the offset pace, not over the record rate')
  t.equal(formatProgress(p), 'replay    30s  27,000 done  900 rec/s  lag 70,000  ETA 1m10s')

  // It stalls for 3 s after 20 s at that pace: the window still sees the recent pace, so the rate falls but is not 0.
  const stalled = [...steady.slice(0, 21), at(21, 18_000, 80_000), at(22, 18_000, 80_000), at(23, 18_000, 80_000)]
  const q = progressOf(stalled)
  t.ok(q.rate > 0 && q.rate < 900, `a short stall lowers the rate (${q.rate})`)
  t.ok(q.etaMs! > 80_000, 'and stretches the ETA')
  // A stall longer than the window: rate 0 and no ETA.
  const long = [...stalled, at(40, 18_000, 80_000)]
  t.equal(progressOf(long).rate, 0)
  t.equal(progressOf(long).etaMs, null)

  // Trimming keeps the start and what the window needs, and gives the same progress.
  const kept = steady.slice()
  trimSamples(kept)
  t.ok(kept.length < steady.length && kept[0] === steady[0])
  t.same(progressOf(kept), p)
})
