// A20: ingest's cache of people, one entry per (account, user) holding everything sealing needs, so a
// record costs one lookup. Two levels (account, then user) so no key string is built per record; two
// generations instead of a strict LRU, so a hit is one `get` (an LRU's re-insertion on every hit, a
// `delete` and a `set`, was the largest share of the sealer's own time, A18's profile). An entry seen
// again while its generation is the old one moves to the young one; the old generation, everyone not seen
// since the young one started, is dropped whole when the young one is full. At most `max` entries.
type Generation<V> = Map<string, Map<string, V>>

export class PersonCache<V> {
  private young: Generation<V> = new Map()
  private old: Generation<V> = new Map()
  private youngSize = 0
  private readonly half: number

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2))
  }

  get(account: string, user: string): V | undefined {
    const v = this.young.get(account)?.get(user)
    if (v !== undefined) return v
    const olds = this.old.get(account)
    const o = olds?.get(user)
    if (o === undefined) return undefined
    olds!.delete(user)
    this.add(account, user, o)
    return o
  }

  /** For a person `get` just missed (a person is held once). */
  add(account: string, user: string, v: V): void {
    let users = this.young.get(account)
    if (users === undefined) this.young.set(account, (users = new Map()))
    users.set(user, v)
    if (++this.youngSize < this.half) return
    this.old = this.young
    this.young = new Map()
    this.youngSize = 0
  }
}
