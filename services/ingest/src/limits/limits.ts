// The one limits interface the HTTP layer and the pipeline call (H2-H5, H32-H34). Two implementations,
// chosen once in main.ts: MemoryLimits (this instance's own limiters, no REDIS_URL) and SharedLimits
// (every instance's counts in Redis, falling back to the instance's own while Redis is away). A local
// answer is synchronous, so the in-memory path never waits on I/O.
import type { RateLimitResult } from './request-limiter.js'
import type { EventAdmission, MonthlyAsk, MonthUsage } from './shared-limits.js'

/** A synchronous answer in memory, a promise when Redis is asked. */
export type Answer<T> = T | Promise<T>
type RateAnswer = Answer<RateLimitResult>

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
  /** Per-second take of `n` events (H4), then, if it fits, the monthly reservation (H5, H33, H34). */
  admitEvents(accountId: string, n: number, perSecond: number, month: MonthlyAsk, now: number): Answer<EventAdmission>
  /** Give back a reservation whose events Kafka did not take (A4). */
  release(admission: EventAdmission, accountId: string, environment: 'live' | 'test', now: number): void
  /** The projector's exact monthly usage (H5, H33, H34). */
  reconcile(monthKey: string, usage: MonthUsage, now: number): Answer<void>
}
