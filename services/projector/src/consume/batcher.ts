// Gathers decoded records from every partition's fetch into one buffer and writes them to
// ClickHouse by size or by time, whichever comes first. Each caller's promise settles only after
// the insert holding its records succeeded, so offsets are committed after ClickHouse has the rows
// (A5). Writes run one at a time, in the order their rows were added.
// Sizes are rows in all tables, trait rows included (record-rows.ts, H40): an insert holds at most
// maxRows rows, or one record's rows when that record alone has more.
import type { PreparedBatch, PreparedRecord } from '../clickhouse/prepared.js'
import { recordRows } from './record-rows.js'
import { realTimers, type Timers } from '../../../shared/src/timers.js'

/** Decoded records with their rows built (prepared.ts). */

export interface BatcherOptions {
  /** Rows (all tables) per insert. */
  maxRows: number
  maxWaitMs: number
  /**
   * When a write ends with at least this many rows buffered, write them at once instead of waiting
   * out the rest of maxWaitMs: under a backlog those rows arrived while the write ran, and holding
   * them back only leaves ClickHouse idle. Small buffers still wait, so a light load keeps making
   * few, large inserts. Unset: never.
   */
  minRowsAfterWrite?: number
  /** The maxWaitMs timer's scheduler; tests fire it themselves. */
  timers?: Timers
}

interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
}

export class InsertBatcher {
  private buf: PreparedBatch = { events: [], identifies: [] }
  private bufRows = 0
  private waiters: Waiter[] = []
  private timer: unknown = null
  private flushing: Promise<void> = Promise.resolve()
  /** Rows added and not yet through their write (buffered, queued or being written). */
  private unwritten = 0
  private roomWaiters: Array<{ max: number; resolve: () => void }> = []
  /** The outcome of the last write queued (resolved when there was none). */
  private lastOutcome: Promise<void> = Promise.resolve()
  private peakUnwritten = 0
  private largestWrite = 0

  private readonly timers: Timers

  constructor(
    private readonly flushFn: (batch: PreparedBatch) => Promise<void>,
    private readonly opts: BatcherOptions,
  ) {
    this.timers = opts.timers ?? realTimers
  }

  /** Rows buffered, not yet handed to a write. */
  get size() {
    return this.bufRows
  }

  /** Rows added and not yet through their write. */
  get pendingRows() {
    return this.unwritten
  }

  /** The most rows ever waiting for their write at once, and the most one write held (H40). */
  get peaks() {
    return { pendingRows: this.peakUnwritten, insertRows: this.largestWrite }
  }

  /**
   * Buffers the part's records; resolves once every write holding them succeeded. A part that
   * would take the buffer past maxRows is cut there: the rows before the cut are written first.
   */
  add(part: PreparedBatch): Promise<void> {
    const writes: Promise<void>[] = []
    for (const kind of KINDS) for (const p of part[kind]) this.push(kind, p, writes)
    if (this.unwritten > this.peakUnwritten) this.peakUnwritten = this.unwritten
    writes.push(this.waiter())
    if (this.size >= this.opts.maxRows) void this.flush()
    else if (!this.timer) this.timer = this.timers.setTimeout(() => void this.flush(), this.opts.maxWaitMs)
    return writes.length === 1 ? writes[0]! : Promise.all(writes).then(() => undefined)
  }

  private push(kind: 'events' | 'identifies', p: PreparedRecord, writes: Promise<void>[]) {
    const rows = recordRows(p)
    if (this.bufRows > 0 && this.bufRows + rows > this.opts.maxRows) {
      writes.push(this.waiter())
      void this.flush()
    }
    // After a cut, this.buf is the new buffer.
    ;(this.buf[kind] as PreparedRecord[]).push(p)
    this.bufRows += rows
    this.unwritten += rows
  }

  private waiter(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /**
   * Resolves once at most `max` rows are waiting for their write: a caller that does not wait for
   * its own write (the projector fetching on while ClickHouse inserts) waits here instead, so the
   * rows held in memory stay bounded while ClickHouse is slow or away.
   */
  whenRoom(max: number): Promise<void> {
    if (this.unwritten <= max) return Promise.resolve()
    return new Promise((resolve) => this.roomWaiters.push({ max, resolve }))
  }

  /**
   * Settles with the write of the last row added so far: since writes run in order, every row
   * added before it has been through its write by then (a failure among those earlier writes was
   * told to their own callers).
   */
  settled(): Promise<void> {
    if (this.size > 0) return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
    return this.lastOutcome
  }

  /** Flushes are serialized: rows of one user stay in commit order across flushes. */
  flush(): Promise<void> {
    if (this.timer) {
      this.timers.clearTimeout(this.timer)
      this.timer = null
    }
    if (this.waiters.length === 0) return this.flushing
    const batch = this.buf
    const waiters = this.waiters
    const rows = this.bufRows
    if (rows > this.largestWrite) this.largestWrite = rows
    this.buf = { events: [], identifies: [] }
    this.bufRows = 0
    this.waiters = []
    // One more waiter on this write, for settled() once the buffer is empty.
    this.lastOutcome = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }))
    this.lastOutcome.catch(() => undefined)
    this.flushing = this.flushing.then(async () => {
      try {
        if (rows) await this.flushFn(batch)
        for (const w of waiters) w.resolve()
      } catch (err) {
        for (const w of waiters) w.reject(err)
      }
      this.unwritten -= rows
      this.roomWaiters = this.roomWaiters.filter((w) => (this.unwritten <= w.max ? (w.resolve(), false) : true))
      const min = this.opts.minRowsAfterWrite
      if (min !== undefined && this.size >= min) void this.flush()
    })
    return this.flushing
  }
}

/** The buffer's tables, in the order a part's records are added. */
const KINDS = ['events', 'identifies'] as const
