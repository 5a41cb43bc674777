// When the shared limiter state (Redis) does not answer, each instance enforces the limits from its
// own memory rather than failing requests (docs/scaling.md): a limit N times too loose for a while is a far
// smaller harm than refusing every request, or a load balancer dropping every instance, because a
// cache is down. This is the switch between the two, kept free of I/O so it is unit-tested alone.
//
// In local mode Redis is not asked on every call: a hung Redis would add the call timeout to every
// request. One call per `retryMs` probes it; the first that succeeds switches back.

export type LimiterMode = 'redis' | 'local'

export interface FallbackChange {
  mode: LimiterMode
  /** Why Redis was left (the failed call's error), when mode is 'local'. */
  reason?: string
}

export class LimiterFallback {
  private current: LimiterMode = 'redis'
  private lastReason: string | undefined
  /** When the current local spell began (ms); 0 in redis mode, and before Redis first answered. */
  private since = 0
  private retryAt = 0
  /** Calls answered by the local limiter because Redis failed or was not asked. */
  fallbacks = 0

  /** With `initial`, start in local mode until Redis first answers (the client connects after
   *  the server listens, and health checks must not count as Redis failing). */
  constructor(
    private readonly retryMs: number,
    private readonly onChange: (c: FallbackChange) => void = () => undefined,
    initial?: { reason: string },
  ) {
    if (initial) {
      this.current = 'local'
      this.lastReason = initial.reason
    }
  }

  get mode(): LimiterMode {
    return this.current
  }

  /** Should the call starting at `now` ask Redis? Always in redis mode; in local mode, one probe per retryMs. */
  shouldTry(now: number): boolean {
    if (this.current === 'redis') return true
    if (now < this.retryAt) return false
    this.retryAt = now + this.retryMs
    return true
  }

  /** A call started at `startedAt` was answered by Redis. A late answer to a call sent before
   *  Redis was given up does not switch back: only calls sent after that prove it answers again. */
  succeeded(startedAt: number): void {
    if (this.current === 'local' && startedAt >= this.since) {
      this.current = 'redis'
      this.lastReason = undefined
      this.since = 0
      this.onChange({ mode: 'redis' })
    }
  }

  /** A call started at `startedAt` failed or timed out; the caller answers it locally. */
  failed(startedAt: number, reason: string): void {
    this.fallbacks++
    if (this.current === 'redis') {
      this.current = 'local'
      this.lastReason = reason
      this.since = startedAt
      this.retryAt = startedAt + this.retryMs
      this.onChange({ mode: 'local', reason })
    } else if (this.since === 0) {
      this.lastReason = reason // never answered yet: say why
    }
  }

  /** A call answered locally without asking Redis (local mode, between probes). */
  skipped(): void {
    this.fallbacks++
  }

  /** The connection came back: let the next call probe at once. */
  probeNow(): void {
    this.retryAt = 0
  }

  /** For /health/ready: where limits are enforced now, and since when if not in Redis. */
  describe(): string {
    if (this.current === 'redis') return 'limits shared in Redis'
    if (this.since === 0) return `Redis has not answered yet (${this.lastReason}); limits enforced per instance`
    return `Redis not answering since ${new Date(this.since).toISOString()} (${this.lastReason}); limits enforced per instance`
  }
}
