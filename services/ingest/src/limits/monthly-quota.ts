// Monthly event quotas: live-key events (H5) and, apart from them, test-key events (H33) per account
// per calendar month (UTC); each is a counter named by quotaCounter(). Per H2 the quota is
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
//
// Retries (H34). Billing counts distinct event ids (usage_monthly_sharded), and only ids derived from a
// message_id (H16) can repeat. reserve() takes the message ids of the request's countable items: an id
// counted within USAGE_IN_FLIGHT_MS (recent-ids.ts) is admitted without counting it again. A retry
// after that is counted again, and the next projected usage lowers the local count back:
//
//     local = min(local, projected + counted here within USAGE_IN_FLIGHT_MS)
//
// what the projector holds plus what may still be on its way to it. If the projector lags by more
// than the window, this can lower the count below what was accepted, until the projection catches up.

import { monthKeyOf } from '../../../shared/src/usage/month-key.js'
import { RecentIds } from './recent-ids.js'
import type { QuotaHolder } from './limits.js'

export interface QuotaReservation {
  /** Countable items admitted, 0..n. Without `accepted`, they are the first `granted` items (H5). */
  readonly granted: number
  /** Of those, how many were counted now (the others repeat an id already counted, H34). */
  readonly charged: number
  /** Per countable item, in order, when the request carried ids (H34). */
  readonly accepted?: readonly boolean[]
  /** Ids counted by this request: forgotten again if it is released. */
  readonly newIds?: readonly string[]
  /** Events counted this month, including those just counted. */
  readonly used: number
  readonly limit: number
  /** ISO 8601 start of next month, UTC (details.resets_at). */
  readonly resetsAt: string
  /** Whole seconds until the month turns (Retry-After when granted < n). */
  readonly retryAfterSeconds: number
}

/** The counter of an account's live events (the account id itself) or test events (H33). */
export function quotaCounter(accountId: string, environment: 'live' | 'test'): string {
  return environment === 'live' ? accountId : `\u0000test\u0000${accountId}`
}

const MINUTE_MS = 60_000
const hasId = (id: string | undefined): boolean => id !== undefined

interface AccountMonth {
  monthStart: number
  projected: number
  local: number
  /** Counted here per minute (start ms, count), the last USAGE_IN_FLIGHT_MS of them. */
  recent: Array<[number, number]>
}

export { monthKeyOf }

const MONTH_KEY = /^(\d{4})-(0[1-9]|1[0-2])$/

export interface MonthlyQuotaOptions {
  /** USAGE_IN_FLIGHT_MS: how long counted ids are remembered and counts are taken as in flight. */
  inFlightMs?: number
  /** Ids remembered at most, over all accounts. */
  maxIds?: number
}

export class MonthlyQuota implements QuotaHolder {
  private readonly accounts = new Map<string, AccountMonth>()
  /** The month of the last call; recomputed only when time leaves it (no Date per call). */
  private month: MonthRange = monthRange(0)
  private readonly inFlightMs: number
  private readonly ids: RecentIds

  constructor(o: MonthlyQuotaOptions = {}) {
    this.inFlightMs = o.inFlightMs ?? 600_000
    this.ids = new RecentIds(this.inFlightMs, o.maxIds)
  }

  /**
   * Record the projector's count for the counter (an account id, or see quotaCounter) in `monthKey`
   * (`YYYY-MM`). The latest value replaces the previous one (de-duplication in ClickHouse may lower it,
   * A5). With `now`, the local count is also lowered to the projection plus what was counted here
   * within USAGE_IN_FLIGHT_MS (H34). A count for a month older than the one held for the counter is
   * ignored; a newer month starts the counter's month afresh.
   */
  setProjectedUsage(counter: string, monthKey: string, count: number, now?: number): void {
    const m = MONTH_KEY.exec(monthKey)
    if (m === null) throw new RangeError(`monthKey must be YYYY-MM, got ${JSON.stringify(monthKey)}`)
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer`)
    const monthStart = Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)
    const a = this.accounts.get(counter)
    if (a === undefined) {
      this.accounts.set(counter, { monthStart, projected: count, local: 0, recent: [] })
    } else if (monthStart === a.monthStart) {
      a.projected = count
      if (now !== undefined) {
        const ceiling = count + this.inFlight(a, now)
        if (a.local > ceiling) a.local = ceiling
      }
    } else if (monthStart > a.monthStart) {
      a.monthStart = monthStart
      a.projected = count
      a.local = 0
      a.recent = []
    }
  }

  /**
   * Reserve events for `counter` against `limit` at time `now` (ms): `n` events, or one per entry of
   * `ids` (each item's message id, undefined without one). Items within the remaining quota are
   * granted, the rest are refused (H5); an id counted lately is granted without counting (H34); a new
   * UTC month starts at 0.
   */
  reserve(
    counter: string,
    items: number | ReadonlyArray<string | undefined>,
    limit: number,
    now: number,
  ): QuotaReservation {
    const month = this.monthOf(now)
    const a = this.stateFor(counter, month.start)
    const used = a.projected > a.local ? a.projected : a.local
    if (typeof items !== 'number' && !items.some(hasId)) items = items.length // nothing to look up: the first n
    if (typeof items === 'number') {
      const granted = grantable(items, used, limit)
      this.count(a, granted, now)
      return reservationOf(used, granted, limit, now, month)
    }
    const d = admitIds(items, (id) => this.ids.has(counter, id, now), grantable(items.length, used, limit))
    this.count(a, d.charged, now)
    const r = {
      ...reservationOf(used, d.charged, limit, now, month),
      granted: d.granted,
      accepted: d.accepted,
      newIds: d.newIds,
    }
    // Remembered last, once the month's own arithmetic is done (H79).
    for (const id of d.newIds) this.ids.add(counter, id, now)
    return r
  }

  /** Give back a reservation made at `now` (the reserve's time) whose events Kafka did not take. */
  release(counter: string, r: number | Pick<QuotaReservation, 'charged' | 'newIds'>, now: number): void {
    const n = typeof r === 'number' ? r : r.charged
    if (typeof r !== 'number') for (const id of r.newIds ?? []) this.ids.delete(counter, id)
    const a = this.accounts.get(counter)
    if (a === undefined || n <= 0) return
    const month = this.monthOf(now)
    if (a.monthStart !== month.start) return // reserved in a month that is over: nothing to give back
    this.count(a, -n, now)
  }

  /** QuotaHolder: the pipeline gives back a reservation made here when Kafka did not take its events (A4). */
  giveBack(accountId: string, environment: 'live' | 'test', r: QuotaReservation, now: number): void {
    this.release(quotaCounter(accountId, environment), r, now)
  }

  /** Events counted for `counter` in the month of `now` (for the dashboard's usage view). */
  used(counter: string, now: number): number {
    const a = this.accounts.get(counter)
    if (a === undefined || a.monthStart !== this.monthOf(now).start) return 0
    return a.projected > a.local ? a.projected : a.local
  }

  /** Adds `n` (may be negative: a release) to the local count, never below 0, and to its minute bucket of `now`. */
  private count(a: AccountMonth, n: number, now: number): void {
    if (n === 0) return
    a.local = Math.max(0, a.local + n)
    const minute = now - (now % MINUTE_MS)
    const last = a.recent[a.recent.length - 1]
    if (last !== undefined && last[0] === minute) last[1] += n
    else if (n > 0) a.recent.push([minute, n])
    this.inFlight(a, now) // drops buckets that left the window
  }

  /** Counted here within the in-flight window ending at `now`. */
  private inFlight(a: AccountMonth, now: number): number {
    const from = now - this.inFlightMs
    while (a.recent.length > 0 && a.recent[0]![0] + MINUTE_MS <= from) a.recent.shift()
    let sum = 0
    for (const [, n] of a.recent) sum += n
    return sum > 0 ? sum : 0
  }

  private monthOf(now: number): MonthRange {
    const m = this.month
    if (now >= m.start && now < m.end) return m
    const r = monthRange(now)
    // keep the newest month cached; an occasional call for an older month just computes it
    if (r.start > m.start) this.month = r
    return r
  }

  private stateFor(counter: string, monthStart: number): AccountMonth {
    let a = this.accounts.get(counter)
    if (a === undefined) {
      a = { monthStart, projected: 0, local: 0, recent: [] }
      this.accounts.set(counter, a)
    } else if (a.monthStart < monthStart) {
      a.monthStart = monthStart // a new month resets the count
      a.projected = 0
      a.local = 0
      a.recent = []
    }
    return a
  }
}

// The month's arithmetic, shared with the Redis answer (shared-limits.ts, redis-limits.ts): pure.

/** The UTC calendar month containing `now`: its bounds, its key (`YYYY-MM`) and next month's start as ISO text. */
export interface MonthRange {
  start: number
  end: number
  key: string
  resetsAt: string
}

export function monthRange(now: number): MonthRange {
  const d = new Date(now)
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return { start, end, key: d.toISOString().slice(0, 7), resetsAt: new Date(end).toISOString() }
}

/** A monthly reservation (H5) from the month's count before it and what was granted (all of it counted). */
export function reservationOf(
  usedBefore: number,
  granted: number,
  limit: number,
  now: number,
  month: MonthRange = monthRange(now),
): QuotaReservation {
  return {
    granted,
    charged: granted,
    used: usedBefore + granted,
    limit,
    resetsAt: month.resetsAt,
    retryAfterSeconds: Math.max(1, Math.ceil((month.end - now) / 1000)),
  }
}

/** How many of `n` events fit when `used` of `limit` are taken (0..n). */
export function grantable(n: number, used: number, limit: number): number {
  const left = limit > used ? limit - used : 0
  return n < left ? (n > 0 ? n : 0) : left
}

/** Which countable items of a request a month admits, when some carry ids (H34). */
export interface IdAdmission {
  /** Per countable item, in order. */
  accepted: boolean[]
  granted: number
  /** Items newly counted: the others repeat an id already counted. */
  charged: number
  /** Ids counted by this request (to forget again if Kafka does not take the records). */
  newIds: string[]
}

/**
 * H34, the rule the Redis script (redis-limits.ts) follows step for step: an item whose id was already
 * counted (`seen`) is admitted without counting; the others are admitted in order while `left` lasts,
 * each counted once; an id repeated within the request goes as its first occurrence went. Items
 * without an id (undefined) are always new.
 */
export function admitIds(
  ids: ReadonlyArray<string | undefined>,
  seen: (id: string) => boolean,
  left: number,
): IdAdmission {
  const accepted: boolean[] = new Array(ids.length)
  const newIds: string[] = []
  const decided = new Map<string, boolean>()
  let granted = 0
  let charged = 0
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]
    let ok = id === undefined ? undefined : decided.get(id)
    if (ok === undefined) {
      if (id !== undefined && seen(id)) ok = true
      else if (charged < left) {
        ok = true
        charged++
        if (id !== undefined) newIds.push(id)
      } else ok = false
      if (id !== undefined) decided.set(id, ok)
    }
    accepted[i] = ok
    if (ok) granted++
  }
  return { accepted, granted, charged, newIds }
}
