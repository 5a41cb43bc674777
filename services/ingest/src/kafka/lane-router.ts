// A4 asks that a request's records are written all or none. A request whose records all share one
// topic and one message key lands in one partition, and Kafka appends one partition's record batch
// atomically, so those requests (every single event, and batches about one user) need no
// transaction: they take the plain idempotent lane, which keeps several flushes in flight. Only
// requests that span partitions pay for a transaction (A4: the transaction round trips capped
// single events at connections / transaction latency).
import type { AppenderHealth, AppenderStats, OutRecord } from './record-appender.js'

export interface Lane {
  append(records: OutRecord[]): Promise<void>
  close(): Promise<void>
  health?(): AppenderHealth
  readonly stats?: AppenderStats
}

export function isSinglePartition(records: readonly OutRecord[]): boolean {
  if (records.length <= 1) return true
  const { topic, key } = records[0]
  for (let i = 1; i < records.length; i++) {
    if (records[i].topic !== topic || records[i].key !== key) return false
  }
  return true
}

export class LaneRouter implements Lane {
  constructor(
    private readonly plain: Lane,
    private readonly atomic: Lane,
  ) {}

  append(records: OutRecord[]): Promise<void> {
    return isSinglePartition(records) ? this.plain.append(records) : this.atomic.append(records)
  }

  async close(): Promise<void> {
    await Promise.all([this.plain.close(), this.atomic.close()])
  }

  get stats(): AppenderStats {
    const a = this.plain.stats
    const b = this.atomic.stats
    const sum = {} as AppenderStats
    for (const k of Object.keys(a ?? b ?? {}) as Array<keyof AppenderStats>) sum[k] = (a?.[k] ?? 0) + (b?.[k] ?? 0)
    return sum
  }

  /** Ready only when both lanes can deliver: a request may need either. */
  health(): AppenderHealth {
    const a = this.plain.health?.() ?? { ready: true, producersUp: 0, queuedRecords: 0 }
    const b = this.atomic.health?.() ?? { ready: true, producersUp: 0, queuedRecords: 0 }
    const reason = !a.ready ? `plain lane: ${a.reason}` : !b.ready ? `transactional lane: ${b.reason}` : undefined
    return {
      ready: a.ready && b.ready,
      reason,
      producersUp: a.producersUp + b.producersUp,
      queuedRecords: a.queuedRecords + b.queuedRecords,
    }
  }
}
