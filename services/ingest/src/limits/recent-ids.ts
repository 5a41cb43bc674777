// The message ids whose events this instance counted toward a monthly quota lately (H34), so a retry of
// one (H16: same message_id, same event_id, stored once) is not counted again. Bounded twice: an id is
// kept `windowMs` (USAGE_IN_FLIGHT_MS), and at most `maxIds` are kept in all (the oldest go first); a
// month of ids per account could not sit in memory. A retry the set no longer holds is counted again
// until reconciliation lowers the count to what was stored (monthly-quota.ts).

export class RecentIds {
  /** counter -> id -> when it is forgotten. Two levels rather than one joined key: joining builds a
   *  new string per lookup, which must then be flattened and hashed (half the cost of a lookup). */
  private readonly until = new Map<string, Map<string, number>>()
  private n = 0
  // Insertion order in a ring (oldest at `head`), so the oldest is found in O(1). A Map's own order
  // would do, but reading a Map's first entry after many deletions at its front walks over them.
  private readonly ringCounter: Array<string | undefined>
  private readonly ringId: Array<string | undefined>
  private readonly ringUntil: Float64Array
  private head = 0
  private count = 0

  constructor(
    private readonly windowMs: number,
    private readonly maxIds: number = 100_000,
  ) {
    // filled: a large array left with holes is kept as a dictionary, several times slower to write
    this.ringCounter = new Array<string | undefined>(maxIds).fill(undefined)
    this.ringId = new Array<string | undefined>(maxIds).fill(undefined)
    this.ringUntil = new Float64Array(maxIds)
  }

  get size(): number {
    return this.n
  }

  has(counter: string, id: string, now: number): boolean {
    this.expire(now)
    const until = this.until.get(counter)?.get(id)
    return until !== undefined && until > now
  }

  add(counter: string, id: string, now: number): void {
    if (this.count === this.maxIds) this.dropOldest()
    const at = (this.head + this.count++) % this.maxIds
    this.ringCounter[at] = counter
    this.ringId[at] = id
    this.ringUntil[at] = now + this.windowMs
    let ids = this.until.get(counter)
    if (ids === undefined) this.until.set(counter, (ids = new Map()))
    if (!ids.has(id)) this.n++
    ids.set(id, now + this.windowMs)
  }

  delete(counter: string, id: string): void {
    const ids = this.until.get(counter)
    if (ids?.delete(id)) this.n--
  }

  /** Drops expired ids from the oldest end, a few per call (O(1), no timer). */
  private expire(now: number): void {
    for (let k = 0; k < 4 && this.count > 0 && this.ringUntil[this.head]! <= now; k++) this.dropOldest()
  }

  /** The oldest slot goes; its id too unless it was added again since (a later expiry). */
  private dropOldest(): void {
    const h = this.head
    const counter = this.ringCounter[h]!
    const ids = this.until.get(counter)
    if (ids !== undefined && ids.get(this.ringId[h]!) === this.ringUntil[h]) {
      ids.delete(this.ringId[h]!)
      this.n--
      if (ids.size === 0) this.until.delete(counter)
    }
    this.ringCounter[h] = this.ringId[h] = undefined
    this.head = (h + 1) % this.maxIds
    this.count--
  }
}
