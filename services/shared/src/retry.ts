// The one retry loop of the services (H68): call, and on a failure worth another attempt wait a
// capped exponential backoff and call again. Each caller keeps its own policy (how many attempts,
// which delays, what is worth retrying, when to give up) and passes it in; the sleep is injected
// so tests run the policy on fake time instead of waiting for it.
import { isRetriable } from './errors.js'

export interface Backoff {
  /** The delay after the first failure; it doubles with each further failure, up to maxMs. */
  initialMs: number
  maxMs: number
  /**
   * Half of each delay is random (default): many clients that failed together do not all try
   * again at the same instant. False gives the exact doubling.
   */
  jitter?: boolean
}

export interface RetryPolicy extends Backoff {
  /** Whether a failure is worth another attempt; one that is not is thrown as it is. Default isRetriable. */
  retryIf?: (err: unknown) => boolean
  /**
   * Called after the `failures`-th failure worth retrying, before waiting: returns what to throw
   * instead of trying again (the caller's give-up error), or undefined to go on. Default: never
   * give up.
   */
  giveUp?: (err: unknown, failures: number) => unknown
  /** Told each failure that will be retried, with the wait before the next attempt. */
  onRetry?: (err: unknown, failures: number, delayMs: number) => void
  /** Waits ms; tests pass a fake. Default: a real timer. */
  sleep?: (ms: number) => Promise<void>
  /** Default Math.random; tests pass a fixed one. */
  random?: () => number
}

/** The wait after the `failures`-th failure (1 for the first). */
export function backoffDelay(failures: number, b: Backoff, random: () => number = Math.random): number {
  // The exponent is capped so that a long outage never overflows to Infinity.
  const base = Math.min(b.maxMs, b.initialMs * 2 ** Math.min(failures - 1, 30))
  return b.jitter === false ? base : Math.round(base / 2 + random() * (base / 2))
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Calls fn until it resolves and returns its value. fn is told how many failures came before
 * this call. A failure retryIf refuses, or one giveUp answers for, ends the loop with a throw.
 */
export async function retry<T>(fn: (failures: number) => Promise<T>, p: RetryPolicy): Promise<T> {
  const retryIf = p.retryIf ?? isRetriable
  const sleep = p.sleep ?? realSleep
  for (let failures = 0; ; ) {
    let err: unknown
    try {
      return await fn(failures)
    } catch (e) {
      err = e
    }
    if (!retryIf(err)) throw err
    failures++
    const stop = p.giveUp?.(err, failures)
    if (stop !== undefined) throw stop
    const delayMs = backoffDelay(failures, p, p.random)
    p.onRetry?.(err, failures, delayMs)
    await sleep(delayMs)
  }
}
