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
  /** Account -> hour ms -> when this process last marked it, for the last MARK_SETTLE_MS. By account, then
   *  by the hour as a number: a key string built per event was most of this step's cost in a replay. */
  private readonly marked = new Map<string, Map<number, number>>()

  constructor(
    private readonly ch: Pick<ClickHouseClient, 'insert'>,
    private readonly database: string,
    private readonly opts: { settings?: ClickHouseSettings; now?: () => number } = {},
  ) {}

  async markDirty(events: Iterable<{ account_id: string; timestamp: number }>): Promise<void> {
    // Taken after the events are stored: a recount that began before it did not see them (U25).
    const now = (this.opts.now ?? Date.now)()
    const settled = now - MARK_SETTLE_MS
    const marks = new Map<string, Set<number>>()
    let accountId: string | undefined
    let hours: Set<number> | undefined
    let marked: Map<number, number> | undefined
    for (const e of events) {
      if (e.account_id !== accountId) {
        accountId = e.account_id
        hours = marks.get(accountId)
        if (hours === undefined) marks.set(accountId, (hours = new Set()))
        marked = this.marked.get(accountId)
      }
      const hourMs = hourFloor(e.timestamp)
      if ((marked?.get(hourMs) ?? Number.NEGATIVE_INFINITY) <= settled) hours!.add(hourMs)
    }
    const list: HourMark[] = []
    for (const [id, set] of marks) for (const hourMs of set) list.push({ accountId: id, hourMs })
    if (list.length === 0) return
    try {
      await insertMarks(this.ch, this.database, list, { markedMs: now, dirty: true }, this.opts.settings)
    } catch (cause) {
      throw classify(cause, DIRTY_HOURS_TABLE)
    }
    this.forgetSettled(settled)
    for (const { accountId: id, hourMs } of list) {
      let at = this.marked.get(id)
      if (at === undefined) this.marked.set(id, (at = new Map()))
      at.set(hourMs, now)
    }
  }

  private forgetSettled(settled: number): void {
    for (const [id, hours] of this.marked) {
      for (const [hourMs, at] of hours) if (at <= settled) hours.delete(hourMs)
      if (hours.size === 0) this.marked.delete(id)
    }
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
