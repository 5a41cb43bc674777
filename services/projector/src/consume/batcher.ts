// Gathers decoded records from every partition's fetch into one buffer and writes them to
// ClickHouse by size or by time, whichever comes first. Each caller's promise settles only after
// the insert holding its records succeeded, so offsets are resolved after ClickHouse has the rows (A5).
import type { PreparedBatch } from '../clickhouse/prepared.js'

/** Decoded records with their rows built (prepared.ts). */
export type ProjectionBatch = PreparedBatch

export interface BatcherOptions {
  maxRows: number
  maxWaitMs: number
  /**
   * When a write ends with at least this many rows buffered, write them at once instead of waiting
   * out the rest of maxWaitMs. Their callers (the consumer's batches of one fetch) are waiting on
   * that write, and nothing else can arrive until they return: the wait would be idle time. Small
   * buffers still wait, so a light load keeps making few, large inserts. Unset: never.
   */
  minRowsAfterWrite?: number
}

interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
}

export class InsertBatcher {
  private buf: ProjectionBatch = { events: [], identifies: [] }
  private waiters: Waiter[] = []
  private timer: NodeJS.Timeout | null = null
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly flushFn: (batch: ProjectionBatch) => Promise<void>, private readonly opts: BatcherOptions) {}

  get size() {
    return this.buf.events.length + this.buf.identifies.length
  }

  add(part: ProjectionBatch): Promise<void> {
    for (const e of part.events) this.buf.events.push(e)
    for (const i of part.identifies) this.buf.identifies.push(i)
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
    if (this.size >= this.opts.maxRows) this.flush()
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.opts.maxWaitMs)
    return p
  }

  /** Flushes are serialized: rows of one user stay in commit order across flushes. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = null
    }
    if (this.waiters.length === 0) return this.flushing
    const batch = this.buf
    const waiters = this.waiters
    this.buf = { events: [], identifies: [] }
    this.waiters = []
    this.flushing = this.flushing.then(async () => {
      try {
        if (batch.events.length || batch.identifies.length) await this.flushFn(batch)
        for (const w of waiters) w.resolve()
      } catch (err) {
        for (const w of waiters) w.reject(err)
      }
      const min = this.opts.minRowsAfterWrite
      if (min !== undefined && this.size >= min) void this.flush()
    })
    return this.flushing
  }
}
