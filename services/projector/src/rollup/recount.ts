// The recount of the hourly counts (decision U25 of docs/design.md): every interval, each closed dirty
// hour of event_counts_dirty not marked in the last MARK_SETTLE_MS is counted from `events FINAL` (the statement of U19) and marked counted,
// the mark versioned by when this pass began, so an hour written into while the pass ran stays dirty
// and is counted by the next. Any number of projector instances may run it: two counts of one hour
// agree, the larger stays (U19), and the marks are versioned by time.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import type { Logger } from '../../../shared/src/log.js'
import { recountRanges } from '../../../shared/src/rollup/recount-ranges.js'
import { closedDirtySql, insertMarks, markRanges, type HourMark } from '../../../shared/src/rollup/dirty-hours.js'
import { Periodic } from '../retention/periodic.js'

export class HourRecount {
  private readonly periodic = new Periodic(
    () => this.runOnce(),
    (err) => this.log.warn('hourly counts: recount failed; trying again at the next pass', { err }),
  )

  constructor(
    private readonly ch: Pick<ClickHouseClient, 'command' | 'insert' | 'query'>,
    private readonly database: string,
    private readonly log: Logger,
    /** settleMs: MARK_SETTLE_MS but for a database whose writers have all finished (closedDirtySql). */
    private readonly opts: { settings?: ClickHouseSettings; now?: () => number; settleMs?: number } = {},
  ) {}

  /** Counts every closed dirty hour and marks it counted; returns how many hours it counted. `onGroup`
   *  after each group of months the hours fall in (the replay's progress). */
  async runOnce(onGroup?: (done: number, total: number, hours: number) => void): Promise<number> {
    const started = (this.opts.now ?? Date.now)()
    const r = await this.ch.query({
      query: closedDirtySql(this.database, started, this.opts.settleMs),
      format: 'JSONEachRow',
    })
    const marks: HourMark[] = (await r.json<{ account_id: string; h: string | number }>()).map((x) => ({
      accountId: x.account_id,
      hourMs: Number(x.h) * 1000,
    }))
    if (marks.length === 0) return 0
    // Every counts table (U19, U26, U29) before the marks: an hour is counted in all of them or dirty.
    await recountRanges(this.ch, this.database, markRanges(marks), this.opts.settings, (done, total) =>
      onGroup?.(done, total, marks.length),
    )
    await insertMarks(this.ch, this.database, marks, { markedMs: started, dirty: false }, this.opts.settings)
    this.log.debug('hourly counts: hours recounted', { hours: marks.length })
    return marks.length
  }

  /** Runs now and every `intervalMs`. */
  start(intervalMs: number): void {
    this.periodic.start(intervalMs)
  }

  close(): void {
    this.periodic.close()
  }
}
