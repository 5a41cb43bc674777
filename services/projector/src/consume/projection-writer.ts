// Step 6 of the projector's walk (docs/design.md, "Projector: one record, file by file"): one
// insert's worth of rows is written to ClickHouse with retry and backoff, then what ClickHouse holds
// goes to the live feed. Records that cannot be mapped to rows are found when their rows are built:
// as they are decoded, or in the write when rows are built after the H16 lookup (prepared.ts,
// RowBuilding). A write that failed for good goes on in bad-records.ts: the records at fault are
// found (a batch the server refuses is split one record at a time), dead-lettered, and the rest written.
import type { Logger } from '../../../shared/src/log.js'
import type { Readiness } from '../../../shared/src/wait-for.js'
import type { Timers } from '../../../shared/src/timers.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import { withRetry, isRetriable, RetriesExhaustedError } from './retry.js'
import { isClickHouseUnavailable } from '../../../shared/src/unavailable.js'
import type { DeadLetters } from './dead-letters.js'
import { isolateBadRecords, type WriteOutcome } from './bad-records.js'

export type { WriteOutcome } from './bad-records.js'

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
      outcome = await isolateBadRecords(batch, err, this, this.deadLetters, this.log)
    }
    const w = outcome.written
    this.metrics?.inserted(w.events.length, w.identifies.length, Number(process.hrtime.bigint() - started) / 1e9)
    return outcome
  }

  /** One write with retry and backoff, no isolation (bad-records.ts writes single records with it). */
  async writeRetrying(batch: PreparedBatch): Promise<unknown> {
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
}
