// In-process fan-out of projected records to live subscribers (issue 4, U1). Each subscriber
// sees one account only and has a bounded queue: a subscriber that cannot keep up is dropped,
// so a slow browser never slows projection.
import type { WriteBatch } from '../clickhouse/writer.js'

export interface LiveItem {
  type: 'event' | 'identify'
  event_id: string
  account_id: string
  environment: string
  event?: string
  user_id: string
  timestamp: string
  received_at: string
  properties?: unknown
  context?: unknown
  traits?: unknown
  email?: string | null
}

export interface Subscriber {
  accountId: string
  /** Returns false when the subscriber's sink is full; the hub then drops it. */
  push(items: LiveItem[]): boolean
  close(reason: string): void
}

const parse = (s: string | null) => {
  if (s == null) return undefined
  try {
    return JSON.parse(s)
  } catch {
    return s
  }
}

export function toLiveItems(batch: WriteBatch): LiveItem[] {
  const items: LiveItem[] = []
  for (const e of batch.events) {
    items.push({
      type: 'event', event_id: e.event_id, account_id: e.account_id, environment: e.environment, event: e.event,
      user_id: e.user_id, timestamp: new Date(e.timestamp).toISOString(), received_at: new Date(e.received_at).toISOString(),
      properties: parse(e.properties), context: parse(e.context),
    })
  }
  for (const i of batch.identifies) {
    items.push({
      type: 'identify', event_id: i.event_id, account_id: i.account_id, environment: i.environment, user_id: i.user_id,
      timestamp: new Date(i.timestamp).toISOString(), received_at: new Date(i.received_at).toISOString(),
      traits: parse(i.traits), email: i.email, context: parse(i.context),
    })
  }
  return items
}

export class LiveHub {
  private readonly byAccount = new Map<string, Set<Subscriber>>()
  dropped = 0

  subscribe(s: Subscriber): () => void {
    let set = this.byAccount.get(s.accountId)
    if (!set) this.byAccount.set(s.accountId, (set = new Set()))
    set.add(s)
    return () => {
      set!.delete(s)
      if (set!.size === 0) this.byAccount.delete(s.accountId)
    }
  }

  get subscribers(): number {
    let n = 0
    for (const s of this.byAccount.values()) n += s.size
    return n
  }

  publish(batch: WriteBatch) {
    if (this.byAccount.size === 0) return
    const perAccount = new Map<string, LiveItem[]>()
    for (const item of toLiveItems(batch)) {
      if (!this.byAccount.has(item.account_id)) continue
      let list = perAccount.get(item.account_id)
      if (!list) perAccount.set(item.account_id, (list = []))
      list.push(item)
    }
    for (const [account, items] of perAccount) {
      for (const s of [...(this.byAccount.get(account) ?? [])]) {
        if (!s.push(items)) {
          this.dropped++
          s.close('subscriber too slow; reconnect to resume')
          this.byAccount.get(account)?.delete(s)
        }
      }
    }
  }
}
