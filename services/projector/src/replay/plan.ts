// What a replay reads: one offset range per partition, [start, end), with `end` the high
// watermark captured when the replay starts, so a replay always stops even while ingest goes on.
import { AppError } from '../../../shared/src/errors.js'
export type ReplayFrom =
  | { kind: 'beginning' }
  /** Kafka log time (when the broker appended the record, about ingest's received_at), epoch ms. */
  | { kind: 'timestamp'; ms: number }
  /** One partition of one topic; `to` is inclusive, absent means up to the end. */
  | { kind: 'offsets'; partition: number; from: bigint; to?: bigint }
  /** Explicit start per partition (`topic/partition` -> offset), e.g. where an earlier replay ended. */
  | { kind: 'positions'; starts: Record<string, string> }

export interface PartitionRange {
  topic: string
  partition: number
  /** First offset to read. */
  start: bigint
  /** First offset not to read. */
  end: bigint
}

export interface PartitionWatermarks {
  partition: number
  low: bigint
  high: bigint
}

/** The few admin calls planning needs (a subset of kafkajs Admin). */
export interface OffsetsAdmin {
  fetchTopicOffsets(topic: string): Promise<Array<{ partition: number; offset: string; high: string; low: string }>>
  fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<Array<{ partition: number; offset: string }>>
}

export class ReplayPlanError extends AppError {
  readonly code = 'INVALID_REPLAY'
  constructor(message: string) {
    super(message, { retriable: false })
  }
}

export const rangeKey = (topic: string, partition: number) => `${topic}/${partition}`

/** Pure part of planning: watermarks (and, for a timestamp, its offsets) -> ranges. */
export function rangesFor(
  topic: string,
  marks: PartitionWatermarks[],
  from: ReplayFrom,
  byTime?: Map<number, bigint>,
): PartitionRange[] {
  const clamp = (x: bigint, m: PartitionWatermarks) => (x < m.low ? m.low : x > m.high ? m.high : x)
  if (from.kind === 'offsets' && !marks.some((m) => m.partition === from.partition)) {
    throw new ReplayPlanError(`topic ${topic} has no partition ${from.partition} (it has ${marks.length})`)
  }
  return marks
    .slice()
    .sort((a, b) => a.partition - b.partition)
    .map((m) => {
      let start = m.low
      let end = m.high
      if (from.kind === 'timestamp') start = byTime?.get(m.partition) ?? m.high
      else if (from.kind === 'offsets') {
        if (m.partition !== from.partition) start = end = m.high
        else {
          start = from.from
          if (from.to !== undefined) end = from.to + 1n
        }
      } else if (from.kind === 'positions') {
        const s = from.starts[rangeKey(topic, m.partition)]
        start = s === undefined ? m.high : BigInt(s)
      }
      start = clamp(start, m)
      end = clamp(end, m)
      return { topic, partition: m.partition, start, end: end < start ? start : end }
    })
}

/** Captures the end offsets now and plans the ranges for each topic. */
export async function planReplay(admin: OffsetsAdmin, topics: string[], from: ReplayFrom): Promise<PartitionRange[]> {
  if (from.kind === 'offsets' && topics.length !== 1)
    throw new ReplayPlanError('an offset range needs exactly one topic')
  if (from.kind === 'offsets' && from.to !== undefined && from.to < from.from)
    throw new ReplayPlanError('--to-offset is before --from-offset')
  const out: PartitionRange[] = []
  for (const topic of topics) {
    const marks = (await admin.fetchTopicOffsets(topic)).map((p) => ({
      partition: p.partition,
      low: BigInt(p.low),
      high: BigInt(p.high),
    }))
    let byTime: Map<number, bigint> | undefined
    if (from.kind === 'timestamp') {
      byTime = new Map(
        (await admin.fetchTopicOffsetsByTimestamp(topic, from.ms)).map((p) => [p.partition, BigInt(p.offset)]),
      )
    }
    out.push(...rangesFor(topic, marks, from, byTime))
  }
  return out
}

export function totalRecords(ranges: PartitionRange[]): number {
  return ranges.reduce((n, r) => n + Number(r.end - r.start), 0)
}
