// The write's last step for the hourly counts (decision U25 of docs/design.md): the hours the batch's
// events fall in are marked dirty in event_counts_dirty, so the dashboard reads them from `events` until
// the recount (recount.ts) has counted them. The writer calls it after its inserts, inside the write's
// retries and before the offsets are committed, so a crash between the insert and the mark re-reads the
// batch and marks again. An hour this process marked less than MARK_SETTLE_MS ago is not marked again:
// the recount counts an hour only once its latest mark is that old, so it begins after such a write.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { hourFloor } from '../../../shared/src/rollup/event-counts.js'
import {
  DIRTY_HOURS_TABLE,
  insertMarks,
  MARK_SETTLE_MS,
  type HourMark,
} from '../../../shared/src/rollup/dirty-hours.js'
import { classify } from '../clickhouse/write-error.js'
import { CLUSTER_INSERT_SETTINGS } from '../clickhouse/partition-groups.js'

/** The writer's last step when HOURLY_COUNTS is on (clickhouse/writer.ts `WriterOptions.hourMarks`). */
export class HourMarks {
  /** `account \0 hour ms` -> when this process last marked it, for the last MARK_SETTLE_MS. */
  private readonly marked = new Map<string, number>()

  constructor(
    private readonly ch: Pick<ClickHouseClient, 'insert'>,
    private readonly database: string,
    private readonly opts: { settings?: ClickHouseSettings; now?: () => number } = {},
  ) {}

  async markDirty(events: Iterable<{ account_id: string; timestamp: number }>): Promise<void> {
    // Taken after the events are stored: a recount that began before it did not see them (U25).
    const now = (this.opts.now ?? Date.now)()
    const settled = now - MARK_SETTLE_MS
    const marks = new Map<string, HourMark>()
    for (const e of events) {
      const hourMs = hourFloor(e.timestamp)
      const key = `${e.account_id}\u0000${hourMs}`
      if ((this.marked.get(key) ?? Number.NEGATIVE_INFINITY) <= settled)
        marks.set(key, { accountId: e.account_id, hourMs })
    }
    if (marks.size === 0) return
    try {
      await insertMarks(this.ch, this.database, [...marks.values()], { markedMs: now, dirty: true }, this.opts.settings)
    } catch (cause) {
      throw classify(cause, DIRTY_HOURS_TABLE)
    }
    for (const [key, at] of this.marked) if (at <= settled) this.marked.delete(key)
    for (const key of marks.keys()) this.marked.set(key, now)
  }
}

type CountsConfig = { hourlyCounts: boolean; clickhouse: { cluster?: string } }

/** The statements' settings: on a cluster, the writer's (H45), so a mark or count survives a replica's loss too. */
export const countSettings = (cfg: CountsConfig) =>
  cfg.clickhouse.cluster ? { settings: CLUSTER_INSERT_SETTINGS } : {}

/** The marks of the live projector's and the replay's writer: none unless HOURLY_COUNTS is on (U25). */
export function hourMarksFor(
  ch: Pick<ClickHouseClient, 'insert'>,
  database: string,
  cfg: CountsConfig,
): HourMarks | undefined {
  return cfg.hourlyCounts ? new HourMarks(ch, database, countSettings(cfg)) : undefined
}
