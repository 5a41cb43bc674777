import t from 'tap'
import { rangesFor, planReplay, totalRecords } from './plan.js'
import { parseReplayArgs } from './args.js'
import { formatProgress, formatSummary, formatDuration } from './progress.js'

const marks = [
  { partition: 1, low: 5n, high: 20n },
  { partition: 0, low: 0n, high: 10n },
]

t.test('ranges: from the beginning, by time, by offsets, from positions', async (t) => {
  t.same(rangesFor('ev', marks, { kind: 'beginning' }), [
    { topic: 'ev', partition: 0, start: 0n, end: 10n },
    { topic: 'ev', partition: 1, start: 5n, end: 20n },
  ])
  t.same(rangesFor('ev', marks, { kind: 'timestamp', ms: 1 }, new Map([[0, 7n], [1, 20n]])).map((r) => [r.start, r.end]), [[7n, 10n], [20n, 20n]])
  t.same(rangesFor('ev', marks, { kind: 'offsets', partition: 1, from: 2n, to: 8n }).map((r) => [r.start, r.end]), [[10n, 10n], [5n, 9n]], 'clamped to the low watermark; other partitions empty')
  t.same(rangesFor('ev', marks, { kind: 'offsets', partition: 1, from: 6n, to: 99n }).map((r) => [r.start, r.end])[1], [6n, 20n], 'clamped to the captured end')
  t.same(rangesFor('ev', marks, { kind: 'positions', starts: { 'ev/0': '4' } }).map((r) => [r.start, r.end]), [[4n, 10n], [20n, 20n]])
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
  await t.rejects(planReplay(admin, ['a', 'b'], { kind: 'offsets', partition: 0, from: 0n }), { code: 'INVALID_REPLAY' })
})

t.test('command-line options', async (t) => {
  t.match(parseReplayArgs([]), { topics: ['events', 'identifies'], from: { kind: 'beginning' }, target: 'live', swap: false, dlq: true })
  t.match(parseReplayArgs(['--topic', 'events', '--from-timestamp', '2025-03-01T00:00:00Z']), { topics: ['events'], from: { kind: 'timestamp', ms: Date.parse('2025-03-01T00:00:00Z') } })
  t.same(parseReplayArgs(['--topic', 'identifies', '--partition', '2', '--from-offset', '10', '--to-offset', '20']), {
    topics: ['identifies'], from: { kind: 'offsets', partition: 2, from: 10n, to: 20n }, target: 'live', swap: false, database: undefined, dlq: true, json: false,
  })
  t.match(parseReplayArgs(['--target', 'fresh', '--swap', '--database', 'x_replay', '--no-dlq']), { target: 'fresh', swap: true, database: 'x_replay', dlq: false })
  t.equal(parseReplayArgs(['--help']), 'help')
  for (const bad of [
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
  ]) t.throws(() => parseReplayArgs(bad), { code: 'USAGE' }, bad.join(' '))
})

t.test('progress and summary lines', async (t) => {
  t.equal(formatDuration(5_400), '5s')
  t.equal(formatDuration(125_000), '2m05s')
  t.equal(formatDuration(3_900_000), '1h05m')
  t.equal(formatProgress({ done: 12_000, remaining: 24_000, elapsedMs: 3000, rate: 4000 }), 'replay     3s  12,000 done  4,000 rec/s  lag 24,000  ETA 6s')
  t.match(formatProgress({ done: 0, remaining: 5, elapsedMs: 1000, rate: 0 }), /ETA \?$/)
  t.equal(
    formatSummary({ records: 1500, byTopic: { 'tracking.events.v1': 1000, 'tracking.identifies.v1': 500 }, events: 998, identifies: 500, deadLettered: 2, durationMs: 1500, rate: 1000, ends: {} }),
    'replay done: 1,500 records in 1.5s (1,000 rec/s)\n  per topic: tracking.events.v1=1,000, tracking.identifies.v1=500\n  written: 998 events, 500 identifies; dead-lettered: 2',
  )
})
