// Waiting for a dependency (Kafka, the schema registry, ClickHouse) instead of exiting: a service
// that starts while one is down, or loses one later, retries with capped exponential backoff, says
// in the log what it waits for, reports not-ready meanwhile (Readiness) and carries on when the
// dependency returns (H27).
import type { Logger } from './log.js'
import { AppError, isRetriable } from './errors.js'
import { backoffDelay, retry } from './retry.js'
import { realTimers, type Timers } from './timers.js'

export interface WaitOptions {
  /** First delay; doubles per attempt up to maxMs, with jitter. */
  initialMs?: number
  maxMs?: number
  /** Aborting ends the wait: the last failure is thrown. */
  signal?: AbortSignal
  /** Marks `name` waiting while failing and 'ok' once fn succeeds. */
  readiness?: Readiness
  /** Which failures mean "not there yet". Default: all but programmer errors and errors marked retriable: false. */
  retryIf?: (err: unknown) => boolean
  /** The waits' timers; tests pass manual ones. Default: Node's. */
  timers?: Timers
}

export class WaitAbortedError extends AppError {
  readonly code = 'WAIT_ABORTED'
  constructor(
    readonly dependency: string,
    cause: unknown,
  ) {
    super(`stopped waiting for ${dependency}`, { retriable: false, cause })
  }
}

/** Programmer errors and errors that say they are permanent are not worth waiting out. */
export const isTransient = isRetriable

/**
 * Calls fn until it resolves and returns its value. Between attempts waits initialMs, doubling up
 * to maxMs. Logs a warning on the first failure and again each time the delay reaches the cap (so a
 * long outage logs about once per maxMs, not once per attempt), and an info line when it succeeds
 * after failing. Throws at once what retryIf refuses, and WaitAbortedError when signal aborts.
 */
export async function waitFor<T>(name: string, fn: () => Promise<T>, log: Logger, opts: WaitOptions = {}): Promise<T> {
  const initialMs = opts.initialMs ?? 250
  const maxMs = Math.max(initialMs, opts.maxMs ?? 5_000)
  const retryIf = opts.retryIf ?? isTransient
  const since = Date.now()
  return retry(
    async (failures) => {
      if (opts.signal?.aborted) throw new WaitAbortedError(name, opts.signal.reason)
      const v = await fn()
      opts.readiness?.set(name, 'ok')
      if (failures > 0)
        log.info(`${name} is available`, { dependency: name, attempts: failures + 1, waitedMs: Date.now() - since })
      return v
    },
    {
      initialMs,
      maxMs,
      retryIf: (err) => !(err instanceof WaitAbortedError) && retryIf(err),
      onRetry: (err, attempt, delayMs) => {
        opts.readiness?.set(name, describe(err))
        // Once on the first failure and again each time the delay is at its cap (before jitter).
        const capped = backoffDelay(attempt, { initialMs, maxMs, jitter: false }) === maxMs
        if (attempt === 1 || capped) log.warn(`waiting for ${name}`, { dependency: name, attempt, delayMs, err })
      },
      sleep: (ms) => sleep(ms, opts.signal, opts.timers),
    },
  )
}

/** Resolves after ms on these timers, or early when signal aborts (the caller's loop then sees it). */
export function sleep(ms: number, signal?: AbortSignal, timers: Timers = realTimers): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      timers.clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = timers.setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown }
  const text = typeof e?.code === 'string' ? e.code : String(e?.message ?? err)
  return `unavailable: ${text.slice(0, 120)}`
}

/**
 * Which dependencies a service has now: each is 'ok' or a short reason. Ready when every one is
 * 'ok'. /health answers readiness from this; liveness never depends on it.
 */
export class Readiness {
  private readonly state = new Map<string, string>()

  /** Lists the dependencies, all 'starting' until told otherwise. */
  constructor(names: string[]) {
    for (const n of names) this.state.set(n, 'starting')
  }

  set(name: string, status: string): void {
    this.state.set(name, status)
  }

  get ready(): boolean {
    for (const s of this.state.values()) if (s !== 'ok') return false
    return true
  }

  /** The names not 'ok', for a log line or a 503 body. */
  missing(): string[] {
    return [...this.state].filter(([, s]) => s !== 'ok').map(([n]) => n)
  }

  snapshot(): Record<string, string> {
    return Object.fromEntries(this.state)
  }
}
