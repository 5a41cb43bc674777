// Monthly event quota (H5): live-key events per account per calendar month (UTC).
//
// Callers: reserve() only for requests made with a live key. Test-key events never count
// (H6), so the HTTP layer must not call reserve() for them at all. Per H2 the quota is
// checked after validation, on the valid items only; if a later step refuses the request
// (per-second limit) or Kafka cannot take the records (A4: 503), release() gives the
// reservation back, passing the same `now` as the reserve so it lands in the same month.
//
// Counting. Kafka is the record (A1); the projector's usage counters in ClickHouse are the
// projection every ingest instance can see, fed in with setProjectedUsage(). Locally, this
// instance counts what it accepted this month (reserved minus released). Then
//
//     used = max(projected, localAccepted)
//
// - Never double-counts: an event accepted here and later seen by the projector is inside
//   both numbers, and max() counts it once. A refusal is therefore never caused by our own
//   bookkeeping, which matters more to users than a few events of overshoot on a soft limit.
// - Not lost while the projector lags: with a single instance running since the start of
//   the month, localAccepted >= what the projector can have seen, so used is exact.
// - Trade-off: after a restart mid-month, or with several instances, events accepted
//   elsewhere/earlier become visible only through `projected`, so the quota can be exceeded
//   by at most (projector lag x accepted rate) before it takes effect. A precise alternative
//   (projected + local events newer than the projector's watermark) needs a watermark from
//   the projector and a per-account time-bucketed history; it can replace this later
//   without changing the interface.

import { monthKeyOf } from '../../../shared/src/usage/month-key.js'
import { grantable, monthRange, reservationOf, type MonthRange } from './windows.js'

export interface QuotaReservation {
  /** Items granted, 0..n; the first `granted` items of the request are accepted (H5). */
  readonly granted: number
  /** Events counted this month, including those just granted. */
  readonly used: number
  readonly limit: number
  /** ISO 8601 start of next month, UTC (details.resets_at). */
  readonly resetsAt: string
  /** Whole seconds until the month turns (Retry-After when granted < n). */
  readonly retryAfterSeconds: number
}

interface AccountMonth {
  monthStart: number
  projected: number
  local: number
}

export { monthKeyOf }

const MONTH_KEY = /^(\d{4})-(0[1-9]|1[0-2])$/

export class MonthlyQuota {
  private readonly accounts = new Map<string, AccountMonth>()
  /** The month of the last call; recomputed only when time leaves it (no Date per call). */
  private month: MonthRange = monthRange(0)

  /**
   * Record the projector's count of live events for `accountId` in `monthKey` (`YYYY-MM`).
   * The latest value replaces the previous one (de-duplication in ClickHouse may lower it,
   * A5). A count for a month older than the one held for the account is ignored; a newer
   * month starts the account's month afresh.
   */
  setProjectedUsage(accountId: string, monthKey: string, count: number): void {
    const m = MONTH_KEY.exec(monthKey)
    if (m === null) throw new RangeError(`monthKey must be YYYY-MM, got ${JSON.stringify(monthKey)}`)
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer`)
    const monthStart = Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)
    const a = this.accounts.get(accountId)
    if (a === undefined) {
      this.accounts.set(accountId, { monthStart, projected: count, local: 0 })
    } else if (monthStart === a.monthStart) {
      a.projected = count
    } else if (monthStart > a.monthStart) {
      a.monthStart = monthStart
      a.projected = count
      a.local = 0
    }
  }

  /**
   * Reserve up to `n` events for `accountId` against `limit` at time `now` (ms). Items within
   * the remaining quota are granted, the rest are refused (H5); a new UTC month starts at 0.
   */
  reserve(accountId: string, n: number, limit: number, now: number): QuotaReservation {
    const month = this.monthOf(now)
    const a = this.stateFor(accountId, month.start)
    const used = a.projected > a.local ? a.projected : a.local
    const granted = grantable(n, used, limit)
    a.local += granted
    return reservationOf(used, granted, limit, now, month)
  }

  /** Give back `n` events reserved at `now` (the reserve's time) that were not accepted. */
  release(accountId: string, n: number, now: number): void {
    const a = this.accounts.get(accountId)
    if (a === undefined || n <= 0) return
    const month = this.monthOf(now)
    if (a.monthStart !== month.start) return // reserved in a month that is over: nothing to give back
    a.local = a.local > n ? a.local - n : 0
  }

  /** Events counted for `accountId` in the month of `now` (for the dashboard's usage view). */
  used(accountId: string, now: number): number {
    const a = this.accounts.get(accountId)
    if (a === undefined || a.monthStart !== this.monthOf(now).start) return 0
    return a.projected > a.local ? a.projected : a.local
  }

  private monthOf(now: number): MonthRange {
    const m = this.month
    if (now >= m.start && now < m.end) return m
    const r = monthRange(now)
    // keep the newest month cached; an occasional call for an older month just computes it
    if (r.start > m.start) this.month = r
    return r
  }

  private stateFor(accountId: string, monthStart: number): AccountMonth {
    let a = this.accounts.get(accountId)
    if (a === undefined) {
      a = { monthStart, projected: 0, local: 0 }
      this.accounts.set(accountId, a)
    } else if (a.monthStart < monthStart) {
      a.monthStart = monthStart // a new month resets the count
      a.projected = 0
      a.local = 0
    }
    return a
  }
}
