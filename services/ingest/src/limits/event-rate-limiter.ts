// Per-second event limit (H4): fixed 1 s windows per account, counting events from both
// /v1/event and /v1/events together.
//
// All-or-nothing per request: a request whose events would take the account past the limit
// in the current second is refused whole and consumes nothing. Splitting a batch by arrival
// second would make which items fail depend on timing, and the client's retry (after
// Retry-After, at most 1 s) resends the batch anyway. Consequence: a batch larger than the
// plan's eventsPerSecond can never pass, so configured limits should be >= 100 (the batch
// maximum); the defaults are 1000.

import { MemoryLimiterStore, type LimiterStore } from './limiter-store.js'
import { EVENT_WINDOW_SECONDS } from '../../../shared/src/accounts/plans.js'
import { eventRateResult, windowStart } from './windows.js'

export type EventRateResult =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number; readonly limit: number }

const ALLOWED: EventRateResult = Object.freeze({ allowed: true as const })

export class EventRateLimiter {
  private readonly windowMs: number

  constructor(
    private readonly store: LimiterStore = new MemoryLimiterStore(),
    windowSeconds: number = EVENT_WINDOW_SECONDS,
  ) {
    this.windowMs = windowSeconds * 1000
  }

  /** Take `n` events from `accountId`'s budget for the second containing `now` (ms). */
  tryTake(accountId: string, n: number, limit: number, now: number): EventRateResult {
    if (n <= 0) return ALLOWED
    const start = windowStart(now, this.windowMs)
    const before = this.store.take(accountId, start, this.windowMs, n, limit, now)
    return eventRateResult(before, n, limit, now, this.windowMs)
  }
}
