// Step 6 of the projector's walk (docs/design.md, "Projector: one record, file by file"): one
// insert's worth of rows is written to ClickHouse with retry and backoff, then what ClickHouse holds
// goes to the live feed. Records that cannot be mapped to rows are found when their rows are built:
// as they are decoded, or in the write when rows are built after the H16 lookup (prepared.ts,
// RowBuilding). A batch the server refuses for its data is split one record at a time to find the
// records at fault; those are dead-lettered (dead-letters.ts) and the rest of the batch is written.
import type { DeadLetterRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import type { Readiness } from '../../../shared/src/wait-for.js'
import type { Timers } from '../../../shared/src/timers.js'
import type { PreparedBatch, PreparedRecord } from '../clickhouse/prepared.js'
import { ClickHouseWriteError, type InvalidRecord } from '../clickhouse/writer.js'
import { withRetry, isRetriable, RetriesExhaustedError } from './retry.js'
import { isClickHouseUnavailable } from '../../../shared/src/unavailable.js'
import { deadLetter, type DeadLetters } from './dead-letters.js'

export interface ProjectionSink {
  writePrepared(batch: PreparedBatch): Promise<unknown>
}

export interface WriterMetrics {
  inserted(events: number, identifies: number, seconds: number): void
}

export interface WriterOptions {
  retries: number
  /** Backoff of ClickHouse retries; tests pass small values. */
  initialRetryMs?: number
  maxRetryMs?: number
  /** The backoff's timers; tests pass manual ones. Default: Node's. */
  timers?: Timers
  /** Told when ClickHouse stops or starts answering (the projector's /health). */
  readiness?: Readiness
  /** Past the retries, keep waiting while ClickHouse is unreachable (until stopping) instead of
   * throwing: the live projector has nothing better to do, and giving up would only re-read the batch. */
  waitForClickHouse?: boolean
}

export interface WriteOutcome {
  /** The records that are in ClickHouse now. */
  written: PreparedBatch
  /** How many records of the batch went to the DLQ instead. */
  deadLettered: number
}

/** The batcher's flush (batcher.ts): write, then hand what ClickHouse holds on (the live feed, written-feed.ts). */
export function writeThenPublish(
  writer: Pick<ProjectionWriter, 'write'>,
  publish: (written: PreparedBatch) => void,
): (batch: PreparedBatch) => Promise<void> {
  return async (batch) => publish((await writer.write(batch)).written)
}

export class ProjectionWriter {
  constructor(
    private readonly sink: ProjectionSink,
    private readonly deadLetters: DeadLetters,
    private readonly opts: WriterOptions,
    private readonly metrics: WriterMetrics | undefined,
    private readonly log: Logger,
    /** Set when the owner is stopping: retries give up instead of waiting. */
    private readonly stopping: { aborted: boolean },
  ) {}

  /**
   * Writes the batch with retry and backoff. Retriable failures that outlast the retries are
   * thrown (the caller must not commit their offsets); records that can never be written are
   * dead-lettered and the rest is written.
   */
  async write(batch: PreparedBatch): Promise<WriteOutcome> {
    const started = process.hrtime.bigint()
    let outcome: WriteOutcome = { written: batch, deadLettered: 0 }
    try {
      await this.writeRetrying(batch)
    } catch (err) {
      if (isRetriable(err) || this.stopping.aborted) throw err
      outcome = await this.isolateBadRecords(batch, err)
    }
    const w = outcome.written
    this.metrics?.inserted(w.events.length, w.identifies.length, Number(process.hrtime.bigint() - started) / 1e9)
    return outcome
  }

  private async writeRetrying(batch: PreparedBatch): Promise<unknown> {
    for (let round = 1; ; round++) {
      try {
        return await this.writeRetryingOnce(batch)
      } catch (err) {
        const cause = err instanceof RetriesExhaustedError ? err.cause : undefined
        if (!this.opts.waitForClickHouse || this.stopping.aborted || !isClickHouseUnavailable(cause)) throw err
        this.log.error('clickhouse still unreachable after the retries; waiting on; its offsets are not committed', {
          round,
          err: cause,
        })
      }
    }
  }

  private writeRetryingOnce(batch: PreparedBatch) {
    return withRetry(() => this.sink.writePrepared(batch), {
      retries: this.opts.retries,
      initialMs: this.opts.initialRetryMs ?? 200,
      maxMs: this.opts.maxRetryMs ?? 10_000,
      signal: this.stopping,
      timers: this.opts.timers,
      onRetry: (err, attempt, delayMs) => {
        this.opts.readiness?.set('clickhouse', `unavailable: ${String((err as Error)?.message ?? err).slice(0, 120)}`)
        this.log.warn('clickhouse insert failed; retrying', { attempt, delayMs, err })
      },
    }).then((r) => {
      this.opts.readiness?.set('clickhouse', 'ok')
      return r
    })
  }

  private async isolateBadRecords(batch: PreparedBatch, cause: unknown): Promise<WriteOutcome> {
    if (cause instanceof ClickHouseWriteError && cause.code === 'INVALID_RECORD' && cause.invalid.length > 0) {
      // Rows built after the lookup: the writer named the records it cannot map and inserted
      // nothing. Dead-letter those, write the rest.
      const bad = new Map<string, InvalidRecord>(cause.invalid.map((r) => [`${r.kind}\u0000${r.event_id}`, r]))
      const rest: PreparedBatch = { events: [], identifies: [] }
      const dead: DeadLetterRecord[] = []
      for (const e of batch.events) {
        const r = bad.get(`event\u0000${e.event_id}`)
        if (r) dead.push({ ...this.deadLetterFor('Event', e, cause), reason: `${e.event_id}: ${r.reason}` })
        else rest.events.push(e)
      }
      for (const i of batch.identifies) {
        const r = bad.get(`identify\u0000${i.event_id}`)
        if (r) dead.push({ ...this.deadLetterFor('Identify', i, cause), reason: `${i.event_id}: ${r.reason}` })
        else rest.identifies.push(i)
      }
      if (dead.length > 0) {
        this.log.error('records cannot be mapped to rows; dead-lettering them', { count: dead.length })
        await this.deadLetters.send(dead)
        if (rest.events.length || rest.identifies.length) {
          const more = await this.write(rest)
          return { written: more.written, deadLettered: dead.length + more.deadLettered }
        }
        return { written: rest, deadLettered: dead.length }
      }
    }
    // The server refused the batch for its data: find the records at fault one at a time.
    this.log.error('clickhouse refused a batch; isolating the records at fault', { err: cause })
    const written: PreparedBatch = { events: [], identifies: [] }
    const dead: DeadLetterRecord[] = []
    for (const e of batch.events) {
      try {
        await this.writeRetrying({ events: [e], identifies: [] })
        written.events.push(e)
      } catch (err) {
        if (isRetriable(err)) throw err
        dead.push(this.deadLetterFor('Event', e, err))
      }
    }
    for (const i of batch.identifies) {
      try {
        await this.writeRetrying({ events: [], identifies: [i] })
        written.identifies.push(i)
      } catch (err) {
        if (isRetriable(err)) throw err
        dead.push(this.deadLetterFor('Identify', i, err))
      }
    }
    await this.deadLetters.send(dead)
    return { written, deadLettered: dead.length }
  }

  private deadLetterFor(kind: 'Event' | 'Identify', p: PreparedRecord, err: unknown): DeadLetterRecord {
    // Records always come with their origin from decode(); one written without (a test's) is re-encoded.
    const origin = p.origin ?? {
      topic: kind === 'Event' ? 'events' : 'identifies',
      partition: -1,
      offset: p.event_id,
      key: null,
      value: p.record ? this.deadLetters.codec.encode(kind, p.record) : null,
    }
    return deadLetter(origin, err)
  }
}
