// Retries with exponential backoff and jitter. Programmer errors (TypeError, RangeError) and
// errors marked retriable:false are not retried; the last failure is thrown with its cause.
import { AppError, isRetriable } from '../../../shared/src/errors.js'
export interface RetryOptions {
  retries: number
  initialMs: number
  maxMs: number
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void
  signal?: { aborted: boolean }
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

export async function withRetry<T>(fn: () => Promise<T>, o: RetryOptions): Promise<T> {
  let attempt = 0
  for (;;) {
    try {
      return await fn()
    } catch (err) {
      attempt++
      if (!isRetriable(err)) throw err
      if (attempt > o.retries || o.signal?.aborted) throw new RetriesExhaustedError(attempt, err)
      const base = Math.min(o.maxMs, o.initialMs * 2 ** (attempt - 1))
      const delay = Math.round(base / 2 + Math.random() * (base / 2))
      o.onRetry?.(err, attempt, delay)
      await new Promise((r) => setTimeout(r, delay))
    }
  }
}
