// The projector's policy for ClickHouse writes, on the shared retry loop (H68): exponential backoff
// with jitter, a bounded number of retries, and a give-up error that keeps the last failure as its
// cause. Programmer errors (TypeError, RangeError) and errors marked retriable:false are not retried.
import { AppError, isRetriable } from '../../../shared/src/errors.js'
import { retry } from '../../../shared/src/retry.js'
import type { Timers } from '../../../shared/src/timers.js'
import { sleep } from '../../../shared/src/wait-for.js'
export interface RetryOptions {
  retries: number
  initialMs: number
  maxMs: number
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void
  signal?: { aborted: boolean }
  /** The backoff's timers; tests pass manual ones. Default: Node's. */
  timers?: Timers
}

export class RetriesExhaustedError extends AppError {
  readonly code = 'RETRIES_EXHAUSTED'
  constructor(
    readonly attempts: number,
    cause: unknown,
  ) {
    // Retriable, as the failures it gave up on were: the caller may wait longer.
    super(`gave up after ${attempts} attempts: ${(cause as Error)?.message ?? cause}`, { retriable: true, cause })
  }
}

export { isRetriable }

export function withRetry<T>(fn: () => Promise<T>, o: RetryOptions): Promise<T> {
  return retry(fn, {
    initialMs: o.initialMs,
    maxMs: o.maxMs,
    giveUp: (err, attempts) =>
      attempts > o.retries || o.signal?.aborted ? new RetriesExhaustedError(attempts, err) : undefined,
    onRetry: o.onRetry,
    sleep: (ms) => sleep(ms, undefined, o.timers),
  })
}
