// Fixed-window counters for the request (H3) and event-rate (H4) limiters.
//
// The interface is synchronous and returns plain numbers so the in-memory store costs no
// promise and no allocation per call on the hot path. A shared store (Redis) for several
// ingest instances would implement the same operations as one atomic step each, e.g.
//   incr: MULTI; INCRBY k by; PEXPIREAT k windowEnd; EXEC            -> count after
//   take: EVAL "local c = tonumber(redis.call('GET', KEYS[1]) or '0')
//               if c + ARGV[1] <= tonumber(ARGV[2]) then
//                 redis.call('INCRBY', KEYS[1], ARGV[1]); redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
//               return c"                                         -> count before
// with k = `${key}:${windowStartMs}`, behind an async variant of this interface (the limiters
// would then await it; their arithmetic stays the same).

export interface LimiterStore {
  /**
   * Add `by` to the counter of `key` for the window starting at `windowStartMs` (length
   * `windowMs`) and return the count after. A counter from an earlier window is discarded.
   */
  incr(key: string, windowStartMs: number, windowMs: number, by: number, now: number): number
  /**
   * Conditional add: add `by` only if the count would stay <= `max`. Returns the count BEFORE
   * the call; the caller knows `by` was added exactly when `before + by <= max`. This keeps a
   * refused request from consuming anything (remaining never goes negative).
   */
  take(key: string, windowStartMs: number, windowMs: number, by: number, max: number, now: number): number
  /** Current count of `key` in the window starting at `windowStartMs` (0 if none). */
  get(key: string, windowStartMs: number): number
}

interface Window {
  start: number
  end: number
  count: number
}

export interface MemoryLimiterStoreOptions {
  /** Entries checked for expiry per call (incremental sweep, no timers). Default 2. */
  sweepPerCall?: number
}

/**
 * In-process LimiterStore. One entry per key holding only its current window (fixed windows
 * never need an older one), reused across windows. Memory stays bounded by the keys active
 * within one window: every call also examines `sweepPerCall` entries of a resumable walk over
 * the map and deletes those whose window has ended, so an idle key is dropped after at most
 * about size/sweepPerCall calls, with O(1) work per call and no timer.
 */
export class MemoryLimiterStore implements LimiterStore {
  private readonly windows = new Map<string, Window>()
  private sweep: IterableIterator<[string, Window]> | undefined
  private readonly sweepPerCall: number

  constructor(options: MemoryLimiterStoreOptions = {}) {
    this.sweepPerCall = options.sweepPerCall ?? 2
  }

  /** Number of keys currently held (for tests and metrics). */
  get size(): number {
    return this.windows.size
  }

  incr(key: string, windowStartMs: number, windowMs: number, by: number, now: number): number {
    this.evictSome(now)
    const w = this.current(key, windowStartMs, windowMs)
    w.count += by
    return w.count
  }

  take(key: string, windowStartMs: number, windowMs: number, by: number, max: number, now: number): number {
    this.evictSome(now)
    const w = this.current(key, windowStartMs, windowMs)
    const before = w.count
    if (before + by <= max) w.count = before + by
    return before
  }

  get(key: string, windowStartMs: number): number {
    const w = this.windows.get(key)
    return w !== undefined && w.start === windowStartMs ? w.count : 0
  }

  /** The entry for `key` positioned on the window at `windowStartMs`. A call for a window older
   *  than the one held (a clock that stepped back, or a caller's `now` older than another's) is
   *  counted in the held window: neither let through uncounted nor resetting the newer window.
   *  The ingest app passes a monotonic `now` (monotonic-clock.ts), so this is the last guard. */
  private current(key: string, windowStartMs: number, windowMs: number): Window {
    let w = this.windows.get(key)
    if (w === undefined) {
      w = { start: windowStartMs, end: windowStartMs + windowMs, count: 0 }
      this.windows.set(key, w)
    } else if (w.start !== windowStartMs) {
      if (windowStartMs < w.start) return w
      w.start = windowStartMs // rollover: reuse the entry
      w.end = windowStartMs + windowMs
      w.count = 0
    }
    return w
  }

  private evictSome(now: number): void {
    for (let i = 0; i < this.sweepPerCall; i++) {
      if (this.sweep === undefined) {
        if (this.windows.size === 0) return
        this.sweep = this.windows.entries()
      }
      const next = this.sweep.next()
      if (next.done === true) {
        this.sweep = undefined // restart the walk on the next call
        return
      }
      if (next.value[1].end <= now) this.windows.delete(next.value[0])
    }
  }
}
