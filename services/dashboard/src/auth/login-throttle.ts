// Login throttling: failed sign-ins are counted per (email, client IP) and per client IP in a
// sliding window; past the limit, sign-in is refused with 429 until the oldest failure ages out.
// A success clears the (email, IP) counter. In memory: a restart forgets failures, which only
// loosens the throttle; several dashboard instances each apply their own.
export interface ThrottleVerdict {
  allowed: boolean
  retryAfterSeconds: number
}

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>()

  constructor(private readonly opts: { maxFailures: number; windowMs: number; maxFailuresPerIp?: number }) {}

  private keys(email: string, ip: string): Array<[string, number]> {
    return [
      [`e:${email.trim().toLowerCase()}|${ip}`, this.opts.maxFailures],
      [`i:${ip}`, this.opts.maxFailuresPerIp ?? this.opts.maxFailures * 10],
    ]
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => t > now - this.opts.windowMs)
    if (list.length) this.failures.set(key, list)
    else this.failures.delete(key)
    return list
  }

  check(email: string, ip: string, now = Date.now()): ThrottleVerdict {
    let retry = 0
    for (const [key, max] of this.keys(email, ip)) {
      const list = this.recent(key, now)
      if (list.length >= max) retry = Math.max(retry, Math.ceil((list[list.length - max]! + this.opts.windowMs - now) / 1000))
    }
    return { allowed: retry === 0, retryAfterSeconds: Math.max(retry, 0) }
  }

  fail(email: string, ip: string, now = Date.now()): void {
    for (const [key] of this.keys(email, ip)) this.failures.set(key, [...this.recent(key, now), now])
    if (this.failures.size > 100_000) this.sweep(now)
  }

  succeed(email: string, ip: string): void {
    this.failures.delete(this.keys(email, ip)[0]![0])
  }

  private sweep(now: number) {
    for (const key of [...this.failures.keys()]) this.recent(key, now)
  }
}
