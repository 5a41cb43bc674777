import t from 'tap'
import { monthIndex, MONTHS_PER_INSERT } from '../../../shared/src/month-groups.js'
import { emptyRange, insertBody, partitionGroups, type Partitioned } from './partition-groups.js'
import { newArenas, prepareBatch, prepareEvent } from './prepared.js'
import { makeEvent } from '../../../../test/support/clickhouse-helpers.js'

// The 15th of the n-th month after January 1970, at noon UTC.
const month = (n: number) => Date.UTC(1970, n, 15, 12)
const now = Date.UTC(2026, 10, 26, 12)
const row = (id: number, timestamp: number, received_at = now) => ({ id, timestamp, received_at })

type Row = Partitioned & { id: number }

// The plain rule the grouping must keep: every record once, each group within the limit in both
// months. Returns what breaks it ([] when nothing does).
function broken(records: Row[], groups: Row[][], limit: number): string[] {
  const out: string[] = []
  const ids = groups
    .flat()
    .map((r) => r.id)
    .sort((a, b) => a - b)
  if (
    ids.join() !==
    records
      .map((r) => r.id)
      .sort((a, b) => a - b)
      .join()
  )
    out.push('not every record exactly once')
  groups.forEach((g, i) => {
    if (g.length === 0) out.push(`group ${i} is empty`)
    if (new Set(g.map((r) => monthIndex(r.timestamp))).size > limit) out.push(`group ${i}: too many event months`)
    if (new Set(g.map((r) => monthIndex(r.received_at))).size > limit) out.push(`group ${i}: too many receipt months`)
  })
  return out
}

t.test('a batch within the limit is one group, the array itself', async (t) => {
  t.same(partitionGroups([]), [])
  const common = [row(1, now), row(2, now - 86_400_000), row(3, now - 40 * 86_400_000)]
  const groups = partitionGroups(common)
  t.equal(groups.length, 1)
  t.equal(groups[0], common, 'not copied')
  const full = Array.from({ length: MONTHS_PER_INSERT }, (_, i) => row(i, month(i)))
  t.equal(partitionGroups(full).length, 1, `${MONTHS_PER_INSERT} months fit one insert`)
  t.equal(
    partitionGroups([...full, row(MONTHS_PER_INSERT, month(MONTHS_PER_INSERT))]).length,
    2,
    'one month more does not (U28)',
  )
})

t.test('more event months than the limit are cut into groups of whole months', async (t) => {
  // Two requests of 100 events each, one per month from 1970-01: 200 months, interleaved.
  const records = Array.from({ length: 400 }, (_, i) => row(i, month(i % 200)))
  const groups = partitionGroups(records)
  t.equal(groups.length, 200 / MONTHS_PER_INSERT)
  t.same(broken(records, groups, MONTHS_PER_INSERT), [])
  const small = partitionGroups(records, 7)
  t.equal(small.length, Math.ceil(200 / 7))
  t.same(broken(records, small, 7), [])
})

t.test('receipt months are bounded too (usage_monthly is partitioned by them)', async (t) => {
  // A replay of years of sparse history: one event month, 150 receipt months.
  const records = Array.from({ length: 150 }, (_, i) => row(i, now, month(i)))
  const groups = partitionGroups(records)
  t.equal(groups.length, 150 / MONTHS_PER_INSERT)
  t.same(broken(records, groups, MONTHS_PER_INSERT), [])
})

t.test('random batches keep the rule at any limit', async (t) => {
  let seed = 42
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
  for (let round = 0; round < 30; round++) {
    const limit = 1 + rand(12)
    const records = Array.from({ length: 1 + rand(300) }, (_, i) => row(i, month(rand(40)), month(rand(30))))
    t.same(
      broken(records, partitionGroups(records, limit), limit),
      [],
      `round ${round}: ${records.length} records, limit ${limit}`,
    )
  }
})

t.test('the insert loop gathers the range while building the insert body, and the grouping takes it', async (t) => {
  const events = [
    makeEvent({ timestamp: month(3), received_at: now }),
    makeEvent({ timestamp: month(250), received_at: month(400) }),
  ]
  const { prepared } = prepareBatch({ events, identifies: [] })
  const range = emptyRange()
  insertBody(prepared.events, 'rows', range)
  t.same(range, { tLo: month(3), tHi: month(250), rLo: month(400), rHi: now })
  t.equal(partitionGroups(prepared.events, 1, range).length, 2)
  t.equal(
    partitionGroups(prepared.events, 1, { tLo: now, tHi: now, rLo: now, rHi: now }).length,
    1,
    'the range given is the one used',
  )
})

const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8')
const ids = (body: string) =>
  body
    .split('\n')
    .slice(0, -1)
    .map((l) => l.split('\t')[0])

t.test('an insert body holds exactly the rows of the records given, in order, across chunks', async (t) => {
  // Small chunks: rows of one body lie in many chunks.
  const arenas = newArenas(2_048)
  const all = Array.from({ length: 40 }, (_, i) =>
    prepareEvent(
      makeEvent({ event_id: `e${i}`, user_traits: i % 3 === 0 ? `{"k${i}":1}` : null }),
      arenas,
      null,
      false,
    ),
  )
  const whole = insertBody(all, 'rows')
  t.same(
    ids(text(whole.chunks)),
    all.map((p) => p.event_id),
  )
  t.ok(
    whole.chunks.length > 1 && whole.chunks.length < all.length,
    `back-to-back rows share views (${whole.chunks.length} views)`,
  )
  const kept = all.filter((_, i) => i % 4 !== 1)
  t.same(
    ids(text(insertBody(kept, 'rows').chunks)),
    kept.map((p) => p.event_id),
    'a dropped record leaves no row',
  )
  const traits = text(insertBody(kept, 'traits').chunks).split('\n').slice(0, -1)
  t.same(
    traits.map((l) => l.split('\t')[7]),
    kept.filter((_, i) => kept[i]!.traitChunk).map((p) => p.event_id),
    'trait rows of the kept records only',
  )
  t.same(insertBody([], 'rows'), { chunks: [], rows: 0 })
})
