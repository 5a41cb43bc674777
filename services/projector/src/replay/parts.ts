// A30: a replay spread over worker threads, each over a share of the partitions. Pure: how the plan is
// shared out, and how the parts' progress and summaries read as one replay's.
import { rangeKey, type PartitionRange } from './plan.js'
import type { ReplayProgress, ReplaySummary } from './progress.js'

const size = (r: PartitionRange) => Number(r.end - r.start)

/**
 * The plan's ranges in at most `parts` shares of about equal size: largest range first, each to the
 * share holding the fewest records so far (a partition is read by one part only, so its order holds).
 * Ranges with nothing to read go to the first share (they only give their end offsets to the summary);
 * shares left with nothing to read are dropped.
 */
export function splitRanges(ranges: PartitionRange[], parts: number): PartitionRange[][] {
  const reading = ranges.filter((r) => size(r) > 0).sort((a, b) => size(b) - size(a))
  const shares = Array.from({ length: Math.max(1, Math.min(parts, reading.length)) }, () => ({
    records: 0,
    ranges: [] as PartitionRange[],
  }))
  for (const r of reading) {
    let least = shares[0]!
    for (const s of shares) if (s.records < least.records) least = s
    least.ranges.push(r)
    least.records += size(r)
  }
  shares[0]!.ranges.push(...ranges.filter((r) => size(r) === 0))
  // In the plan's order within a share, as a one-part replay reads them.
  const order = new Map(ranges.map((r, i) => [rangeKey(r.topic, r.partition), i]))
  const at = (r: PartitionRange) => order.get(rangeKey(r.topic, r.partition))!
  return shares.map((s) => s.ranges.sort((a, b) => at(a) - at(b)))
}

/** The parts' latest progress as one replay's: counts and rates add up, the replay ends with its last part. */
export function mergeProgress(parts: ReplayProgress[]): ReplayProgress {
  let done = 0
  let remaining = 0
  let elapsedMs = 0
  let rate = 0
  let etaMs: number | null = 0
  for (const p of parts) {
    done += p.done
    remaining += p.remaining
    rate += p.rate
    elapsedMs = Math.max(elapsedMs, p.elapsedMs)
    const eta =
      p.etaMs !== undefined ? p.etaMs : p.remaining === 0 ? 0 : p.rate > 0 ? (p.remaining / p.rate) * 1000 : null
    etaMs = etaMs === null || eta === null ? null : Math.max(etaMs, eta)
  }
  return { done, remaining, elapsedMs, rate, etaMs: remaining === 0 ? 0 : etaMs }
}

/** The parts' summaries as one replay's, which took `durationMs` from the first part's start to the last's end. */
export function mergeSummaries(parts: ReplaySummary[], durationMs: number): ReplaySummary {
  const out: ReplaySummary = {
    records: 0,
    byTopic: {},
    events: 0,
    identifies: 0,
    deadLettered: 0,
    durationMs,
    rate: 0,
    ends: {},
  }
  for (const s of parts) {
    out.records += s.records
    out.events += s.events
    out.identifies += s.identifies
    out.deadLettered += s.deadLettered
    for (const [t, n] of Object.entries(s.byTopic)) out.byTopic[t] = (out.byTopic[t] ?? 0) + n
    Object.assign(out.ends, s.ends)
  }
  out.rate = durationMs > 0 ? (out.records * 1000) / durationMs : 0
  return out
}
