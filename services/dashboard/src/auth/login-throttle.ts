// Sign-in and sign-up throttling (docs/security.md). An attempt is counted the moment it is let through,
// before the asynchronous scrypt call, so a parallel burst cannot all pass the check before any
// failure is recorded. Sliding windows, in memory: a restart forgets attempts, which only loosens
// the throttle; several dashboard instances each apply their own.
//
// Sign-in buckets: (email, client address) at `maxFailures`, so one client cannot lock another
// address out of an account; the client address across emails (credential stuffing); and the
// email across addresses (a distributed guess at one account), both at higher limits.
export interface ThrottleVerdict {
  allowed: boolean
  retryAfterSeconds: number
}

/** Timestamps per key in a sliding window. */
class SlidingWindow {
  private readonly hits = new Map<string, number[]>()

  constructor(private readonly windowMs: number) {}

  recent(key: string, now: number): number[] {
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs)
    if (list.length) this.hits.set(key, list)
    else this.hits.delete(key)
    return list
  }

  /** Seconds until `key` is under `max` again, 0 when it is already. */
  wait(key: string, max: number, now: number): number {
    const list = this.recent(key, now)
    return list.length < max ? 0 : Math.max(1, Math.ceil((list[list.length - max]! + this.windowMs - now) / 1000))
  }

  add(key: string, now: number): void {
    this.hits.set(key, [...this.recent(key, now), now])
    if (this.hits.size > 100_000) for (const k of [...this.hits.keys()]) this.recent(k, now)
  }

  /** Takes back one hit recorded at `at` (a success is not a failure). */
  remove(key: string, at: number): void {
    const list = this.hits.get(key)
    const i = list?.lastIndexOf(at) ?? -1
    if (i >= 0) list!.splice(i, 1)
    if (list && list.length === 0) this.hits.delete(key)
  }

  clear(key: string): void {
    this.hits.delete(key)
  }
}

/** Checks every bucket, and when all allow, records the attempt in each before returning. */
function admit(w: SlidingWindow, buckets: Array<[string, number]>, now: number): ThrottleVerdict {
  const wait = Math.max(0, ...buckets.map(([key, max]) => w.wait(key, max, now)))
  if (wait > 0) return { allowed: false, retryAfterSeconds: wait }
  for (const [key] of buckets) w.add(key, now)
  return { allowed: true, retryAfterSeconds: 0 }
}

export interface LoginAttempt extends ThrottleVerdict {
  /** Call when the password was right: the attempt no longer counts, and the (email, address) bucket clears. */
  succeed(): void
}

export class LoginThrottle {
  private readonly w: SlidingWindow

  constructor(
    private readonly opts: {
      maxFailures: number
      windowMs: number
      maxFailuresPerIp?: number
      maxFailuresPerEmail?: number
    },
  ) {
    this.w = new SlidingWindow(opts.windowMs)
  }

  private buckets(email: string, ip: string): Array<[string, number]> {
    const e = email.trim().toLowerCase()
    return [
      [`e:${e}|${ip}`, this.opts.maxFailures],
      [`i:${ip}`, this.opts.maxFailuresPerIp ?? this.opts.maxFailures * 10],
      [`e:${e}`, this.opts.maxFailuresPerEmail ?? this.opts.maxFailures * 20],
    ]
  }

  /** Admits a sign-in attempt and counts it as a failure until `succeed()` is called. */
  begin(email: string, ip: string, now = Date.now()): LoginAttempt {
    const buckets = this.buckets(email, ip)
    const v = admit(this.w, buckets, now)
    return {
      ...v,
      succeed: () => {
        if (!v.allowed) return
        for (const [key] of buckets.slice(1)) this.w.remove(key, now)
        this.w.clear(buckets[0]![0])
      },
    }
  }
}

/** Sign-ups per client address: each runs scrypt (16 MB) and creates an account. */
export class SignupThrottle {
  private readonly w: SlidingWindow

  constructor(private readonly opts: { maxPerIp: number; windowMs: number }) {
    this.w = new SlidingWindow(opts.windowMs)
  }

  begin(ip: string, now = Date.now()): ThrottleVerdict {
    return admit(this.w, [[`s:${ip}`, this.opts.maxPerIp]], now)
  }
}

/** Requests per bucket in a sliding minute: the dashboard's reads of event data (per session and
 * per account, H23) and key changes (per account, U5). */
export class RequestThrottle {
  private readonly w = new SlidingWindow(60_000)

  /** Counts one request in every bucket [key, max per minute] when all have room; else refuses. */
  begin(buckets: Array<[string, number]>, now = Date.now()): ThrottleVerdict {
    return admit(this.w, buckets, now)
  }
}
