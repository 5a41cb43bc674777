// A19: the pure parts of `npm run privacy -- reencrypt` (docs/privacy.md, "Re-encrypting old history"):
// what becomes of each source record, where a run resumes, and the progress line. No server here.

/** Headers every record the tool writes carries: where it came from, so a rerun skips what is there. */
export const SOURCE_PARTITION_HEADER = 'reencrypt-source-partition'
export const SOURCE_OFFSET_HEADER = 'reencrypt-source-offset'

/**
 * What the tool does with one source record: `copy` an already sealed one as it is, `seal` a clear one
 * as ingest would (A15), `stub` a clear one of an erased person (A12): sealed with a key that is never
 * stored, under a random pseudonym, so it reads as a record whose key is gone (a usage stub, counts
 * exact) and links to nobody.
 */
export type Action = 'copy' | 'seal' | 'stub'

export function actionFor(sealed: boolean, erased: boolean): Action {
  if (sealed) return 'copy'
  return erased ? 'stub' : 'seal'
}

/** A source partition's work: from `start` (inclusive) to `end` (exclusive, the end when the run began). */
export interface PartitionPlan {
  partition: number
  start: bigint
  end: bigint
}

/**
 * Where each source partition starts: at the offset the tool's consumer group committed (every record
 * before it is on the destination), else at the partition's first offset. Partitions already complete
 * are left out.
 */
export function planPartitions(
  ends: ReadonlyArray<{ partition: number; low: bigint; high: bigint }>,
  committed: ReadonlyMap<number, bigint>,
): PartitionPlan[] {
  const out: PartitionPlan[] = []
  for (const { partition, low, high } of ends) {
    const c = committed.get(partition)
    const start = c !== undefined && c > low ? c : low
    if (start < high) out.push({ partition, start, end: high })
  }
  return out.sort((a, b) => a.partition - b.partition)
}

/** The key of a source record in the set of those a crashed run wrote after its last commit. */
export const sourceRef = (partition: number, offset: string | bigint) => `${partition}:${offset}`

/** The source references the destination's tail records carry (records without the headers are ignored). */
export function writtenRefs(
  headers: ReadonlyArray<Record<string, Buffer | string | undefined> | undefined>,
): Set<string> {
  const out = new Set<string>()
  for (const h of headers) {
    const p = h?.[SOURCE_PARTITION_HEADER]
    const o = h?.[SOURCE_OFFSET_HEADER]
    if (p !== undefined && o !== undefined) out.add(sourceRef(Number(p.toString()), o.toString()))
  }
  return out
}

/** Where a destination partition's tail starts: one chunk back is all a crash can leave uncommitted. */
export function tailStart(low: bigint, high: bigint, chunk: number): bigint {
  const start = high - BigInt(chunk)
  return start > low ? start : low
}

export interface Progress {
  /** Per source partition: records read so far (of this run) and the run's total. */
  partitions: Map<number, { done: bigint; total: bigint }>
  startedAt: number
}

export function newProgress(plans: readonly PartitionPlan[], now: number): Progress {
  return {
    partitions: new Map(plans.map((p) => [p.partition, { done: 0n, total: p.end - p.start }])),
    startedAt: now,
  }
}

/** The progress line on stderr: offsets done of the total, the rate, and each partition's share. */
export function formatProgress(p: Progress, now: number): string {
  let done = 0n
  let total = 0n
  const parts: string[] = []
  for (const [partition, s] of p.partitions) {
    done += s.done
    total += s.total
    parts.push(`p${partition} ${s.done}/${s.total}`)
  }
  const seconds = (now - p.startedAt) / 1000
  const rate = seconds > 0 ? Math.round(Number(done) / seconds) : 0
  const pct = total > 0n ? Number((done * 1000n) / total) / 10 : 100
  return `reencrypt ${done}/${total} (${pct}%) ${rate} records/s  ${parts.join(' ')}`
}

/** What the operator does once the destination topics are complete (docs/privacy.md says the same). */
export function afterwardSteps(from: string, to: string): string {
  return [
    `Done: ${from} is copied to ${to}, personal fields sealed. Next (docs/privacy.md, "Re-encrypting old history"):`,
    '  1. Run reencrypt for every event topic (events and identifies) if not done yet.',
    '  2. Stop ingest; rerun each reencrypt to copy what arrived meanwhile (it resumes, nothing is copied twice).',
    `  3. Switch the topic names in config (TOPIC_EVENTS / TOPIC_IDENTIFIES = the new topics), set PRIVACY_ENCRYPT=true, start ingest.`,
    '  4. Rebuild the projections from the new topics: npm run replay -- --target fresh --swap.',
    `  5. Delete the clear topics (kafka-topics --delete --topic ${from}) and their consumer groups: until then`,
    '     personal data in clear stays on the disks.',
  ].join('\n')
}
