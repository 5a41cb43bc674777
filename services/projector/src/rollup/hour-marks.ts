// The step after the write for the hourly counts (decision U25 of docs/design.md): the hours the batch's
// events fall in are marked dirty in event_counts_dirty, so the dashboard reads them from `events` until
// the recount (recount.ts) has counted them. The writer only writes; this wraps it, inside the write's
// retries and before the offsets are committed, so a crash between the insert and the mark re-reads the
// batch and marks again. An open hour this process has marked already is not marked again: nothing
// recounts an hour before it closes, so its mark stands; a closed hour is marked on every write (a late
// event) as the recount may have counted it since.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { hourFloor } from '../../../shared/src/rollup/event-counts.js'
import {
  closedBefore,
  DIRTY_HOURS_TABLE,
  markStatements,
  type HourMark,
} from '../../../shared/src/rollup/dirty-hours.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import { classify, CLUSTER_INSERT_SETTINGS } from '../clickhouse/writer.js'

export interface BatchSink<T> {
  writePrepared(batch: PreparedBatch): Promise<T>
}

export class HourMarkingSink<T> implements BatchSink<T> {
  /** `account \0 hour ms` of the open hours marked by this process. */
  private readonly marked = new Set<string>()
  private markedBefore = 0

  constructor(
    private readonly sink: BatchSink<T>,
    private readonly ch: Pick<ClickHouseClient, 'command'>,
    private readonly database: string,
    private readonly opts: { settings?: ClickHouseSettings; now?: () => number } = {},
  ) {}

  async writePrepared(batch: PreparedBatch): Promise<T> {
    const written = await this.sink.writePrepared(batch)
    // The hours of every event of the batch, the retries H16 drops included: a write that stored the
    // events and failed before its marks is retried without them, and their hours must still be marked.
    await this.markDirty(batch.events)
    return written
  }

  async markDirty(events: Iterable<{ account_id: string; timestamp: number }>): Promise<void> {
    // Taken after the events are stored: a recount that began before it did not see them (U25).
    const now = (this.opts.now ?? Date.now)()
    const open = closedBefore(now)
    if (open !== this.markedBefore) this.forgetClosed(open)
    const marks = new Map<string, HourMark>()
    for (const e of events) {
      const hourMs = hourFloor(e.timestamp)
      const key = `${e.account_id}\u0000${hourMs}`
      if (!(hourMs >= open && this.marked.has(key))) marks.set(key, { accountId: e.account_id, hourMs })
    }
    if (marks.size === 0) return
    try {
      for (const query of markStatements(this.database, [...marks.values()], now, true))
        await this.ch.command({ query, ...(this.opts.settings ? { clickhouse_settings: this.opts.settings } : {}) })
    } catch (cause) {
      throw classify(cause, DIRTY_HOURS_TABLE)
    }
    for (const [key, m] of marks) if (m.hourMs >= open) this.marked.add(key)
  }

  private forgetClosed(open: number): void {
    for (const key of this.marked) if (Number(key.slice(key.indexOf('\u0000') + 1)) < open) this.marked.delete(key)
    this.markedBefore = open
  }
}

type CountsConfig = { hourlyCounts: boolean; clickhouse: { cluster?: string } }

/** The statements' settings: on a cluster, the writer's (H45), so a mark or count survives a replica's loss too. */
export const countSettings = (cfg: CountsConfig) =>
  cfg.clickhouse.cluster ? { settings: CLUSTER_INSERT_SETTINGS } : {}

/** The sink of the live projector and the replay: the writer, followed by the marks when HOURLY_COUNTS is on (U25). */
export function withHourMarks<T>(
  sink: BatchSink<T>,
  ch: Pick<ClickHouseClient, 'command'>,
  database: string,
  cfg: CountsConfig,
): BatchSink<T> {
  return cfg.hourlyCounts ? new HourMarkingSink(sink, ch, database, countSettings(cfg)) : sink
}
