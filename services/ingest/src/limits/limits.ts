// The one limits interface the HTTP layer and the pipeline call (H2-H5, H32-H34). Two implementations,
// chosen once in main.ts: MemoryLimits (this instance's own limiters, no REDIS_URL) and SharedLimits
// (every instance's counts in Redis, falling back to the instance's own while Redis is away). A local
// answer is synchronous, so the in-memory path never waits on I/O.
import type { RateLimitResult } from './request-limiter.js'
import type { EventRateResult } from './event-rate-limiter.js'
import type { QuotaReservation } from './monthly-quota.js'

/** A synchronous answer in memory, a promise when Redis is asked. */
export type Answer<T> = T | Promise<T>
type RateAnswer = Answer<RateLimitResult>

/** Where a monthly reservation was made: this instance's quota (monthly-quota.ts) or Redis (redis-limits.ts). */
export interface QuotaHolder {
  /** Give back a reservation made here at `now` whose events Kafka did not take (A4). Never throws. */
  giveBack(accountId: string, environment: 'live' | 'test', reservation: QuotaReservation, now: number): void
}

export interface EventAdmission {
  rate: EventRateResult
  /** The monthly reservation when there were countable events and the per-second limit let them through. */
  quota?: QuotaReservation
  /** Where the reservation was made, so the pipeline gives it back to the same place (H79). */
  heldBy?: QuotaHolder
}

/** The events of one request as the monthly quota sees them (H5, H33, H34). */
export interface MonthlyAsk {
  /** Which month counter: live-key events (H5) or test-key events (H33). */
  environment: 'live' | 'test'
  /** One entry per countable item (events, not identifies): its message id, or undefined. */
  ids: ReadonlyArray<string | undefined>
  /** The plan's cap for that counter. */
  limit: number
}

/** The projector's counts of a month per account, live and test (usage-query.ts monthlyUsage). */
export interface MonthUsage {
  live: ReadonlyMap<string, number>
  test: ReadonlyMap<string, number>
}

export interface Limits {
  /** Where limits are enforced now (the limiter-mode metric): memory (no REDIS_URL), redis, or local (Redis away). */
  readonly mode: 'memory' | 'redis' | 'local'
  /** The readiness detail (http/readiness.ts). */
  describe(): string
  /** The per-minute check of one request (H2/H3) on an account or client-IP bucket. */
  checkRequest(bucket: string, limit: number, now: number): RateAnswer
  /** The per-minute check of an account guarded by its key and address's refused budget (H32). */
  checkGuarded(bucket: string, limit: number, refused: string, refusedLimit: number, now: number): RateAnswer
  /** A request refused for its body: given back to the account, counted in the refused budget (H32). */
  refusedBody(bucket: string, refused: string, now: number): Answer<void>
  /** The bucket's headers for a response that was not counted. */
  peekRequest(bucket: string, limit: number, now: number): RateAnswer
  /** Per-second take of `n` events (H4), then, if it fits, the monthly reservation (H5, H33, H34); a
   *  reservation whose events Kafka does not take is given back to its `heldBy` (A4). */
  admitEvents(accountId: string, n: number, perSecond: number, month: MonthlyAsk, now: number): Answer<EventAdmission>
  /** The projector's exact monthly usage (H5, H33, H34). */
  reconcile(monthKey: string, usage: MonthUsage, now: number): Answer<void>
}
