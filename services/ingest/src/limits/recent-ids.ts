// The message ids whose events this instance counted toward a monthly quota lately (H34), so a retry of
// one (H16: same message_id, same event_id, stored once) is not counted again. Bounded twice: an id is
// kept `windowMs` (USAGE_IN_FLIGHT_MS), and at most `maxIds` are kept in all (the oldest go first); a
// month of ids per account could not sit in memory. A retry the set no longer holds is counted again
// until reconciliation lowers the count to what was stored (monthly-quota.ts).

export class RecentIds {
  /** `${counter}\n${id}` -> when it is forgotten; insertion order is expiry order (one window, a monotonic now). */
  private readonly ids = new Map<string, number>()

  constructor(private readonly windowMs: number, private readonly maxIds: number = 100_000) {}

  get size(): number {
    return this.ids.size
  }

  has(counter: string, id: string, now: number): boolean {
    this.expire(now)
    const until = this.ids.get(`${counter}\n${id}`)
    return until !== undefined && until > now
  }

  add(counter: string, id: string, now: number): void {
    const k = `${counter}\n${id}`
    this.ids.delete(k) // re-added at the end, with its new expiry
    if (this.ids.size >= this.maxIds) this.ids.delete(this.ids.keys().next().value!)
    this.ids.set(k, now + this.windowMs)
  }

  delete(counter: string, id: string): void {
    this.ids.delete(`${counter}\n${id}`)
  }

  /** Drops expired ids from the front, a few per call (O(1) amortised, no timer). */
  private expire(now: number): void {
    let n = 0
    for (const [k, until] of this.ids) {
      if (until > now || n++ >= 4) return
      this.ids.delete(k)
    }
  }
}
