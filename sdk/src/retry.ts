// When to retry a batch and how long to wait: exponential backoff with jitter, overridden by the
// server's Retry-After (429, 503) or X-RateLimit-Reset (429). Pure functions, unit-tested.

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number
  /** First backoff step in ms. */
  minDelayMs: number
  /** Largest backoff step in ms. */
  maxDelayMs: number
  /** A Retry-After longer than this is not waited out: the batch fails (e.g. a monthly limit). */
  maxRetryAfterMs: number
}

/**
 * Backoff before retry number `attempt` (0 for the first retry): min(maxDelay, minDelay * 2^attempt),
 * of which a random half is jitter, so clients that failed together do not retry together.
 */
export function backoffDelay(
  attempt: number,
  p: Pick<RetryPolicy, 'minDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const base = Math.min(p.maxDelayMs, p.minDelayMs * 2 ** Math.min(attempt, 30))
  return Math.round(base / 2 + random() * (base / 2))
}

/**
 * How long the server asked us to wait, in ms: Retry-After as seconds or an HTTP date, else (on
 * 429) X-RateLimit-Reset, a Unix time in seconds. Undefined when neither header is usable.
 */
export function serverDelay(
  status: number,
  header: (name: string) => string | null,
  nowMs: number,
): number | undefined {
  const ra = header('retry-after')?.trim()
  if (ra) {
    if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000)
    const at = Date.parse(ra)
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs)
  }
  if (status === 429) {
    const reset = header('x-ratelimit-reset')?.trim()
    if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - nowMs)
  }
  return undefined
}

/** Statuses worth another attempt with the same message_ids (idempotent, H16). */
export function isRetriableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500
}

/** Codes of 429 answers that waiting a little will not cure (H5, H33: until the month turns). */
export const FINAL_429_CODES: ReadonlySet<string> = new Set([
  'MONTHLY_EVENT_LIMIT_EXCEEDED',
  'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED',
])

/**
 * The wait before the next attempt: the server's delay when it gave one (plus up to a second of
 * jitter, so a crowd of clients does not return in the same instant), else backoff.
 */
export function nextDelay(
  attempt: number,
  p: RetryPolicy,
  server: number | undefined,
  random: () => number = Math.random,
): number {
  if (server !== undefined) return server + Math.round(random() * Math.min(1000, p.minDelayMs * 2))
  return backoffDelay(attempt, p, random)
}
