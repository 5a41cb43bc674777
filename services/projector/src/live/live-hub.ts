// In-process fan-out of projected records to live subscribers (U1, U3). Each subscriber sees one
// account only. Each item is serialized to its server-sent-events frame once per publish and the
// same bytes go to every subscriber that wants it. A subscriber that cannot keep up is cut off,
// so a slow browser never slows projection. Streams are capped per account and in total (U3).
import type { RecordsByKind } from '../clickhouse/writer.js'

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

/** An item with its SSE frame (`id`, `event`, `data` lines), built once per publish. */
export interface LiveFrame {
  item: LiveItem
  frame: Buffer
}

export interface Subscriber {
  accountId: string
  /** Returns false when the subscriber cannot take these frames; the hub then cuts it off. */
  push(frames: readonly LiveFrame[]): boolean
  close(reason: string): void
}

export interface LiveLimits {
  /** Open streams across all accounts. */
  maxStreams: number
  /** Open streams of one account. */
  maxStreamsPerAccount: number
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = { maxStreams: 1000, maxStreamsPerAccount: 20 }

/** subscribe()'s answer: the stream is in (with its unsubscribe), or which cap refused it. */
export type Admission = { ok: true; unsubscribe: () => void } | { ok: false; cap: 'account' | 'total' }

const parse = (s: string | null) => {
  if (s == null) return undefined
  try {
    return JSON.parse(s)
  } catch {
    return s
  }
}

export function toLiveItems(batch: RecordsByKind): LiveItem[] {
  const items: LiveItem[] = []
  for (const e of batch.events) {
    items.push({
      type: 'event',
      event_id: e.event_id,
      account_id: e.account_id,
      environment: e.environment,
      event: e.event,
      user_id: e.user_id,
      timestamp: new Date(e.timestamp).toISOString(),
      received_at: new Date(e.received_at).toISOString(),
      properties: parse(e.properties),
      context: parse(e.context),
    })
  }
  for (const i of batch.identifies) {
    items.push({
      type: 'identify',
      event_id: i.event_id,
      account_id: i.account_id,
      environment: i.environment,
      user_id: i.user_id,
      timestamp: new Date(i.timestamp).toISOString(),
      received_at: new Date(i.received_at).toISOString(),
      traits: parse(i.traits),
      email: i.email,
      context: parse(i.context),
    })
  }
  return items
}

export const sseFrame = (item: LiveItem): Buffer =>
  Buffer.from(`id: ${item.event_id}\nevent: ${item.type}\ndata: ${JSON.stringify(item)}\n\n`)

export class LiveHub {
  private readonly byAccount = new Map<string, Set<Subscriber>>()
  private open = 0
  dropped = 0

  constructor(private readonly limits: LiveLimits = DEFAULT_LIVE_LIMITS) {}

  subscribe(s: Subscriber): Admission {
    const set = this.byAccount.get(s.accountId) ?? new Set<Subscriber>()
    if (this.open >= this.limits.maxStreams) return { ok: false, cap: 'total' }
    if (set.size >= this.limits.maxStreamsPerAccount) return { ok: false, cap: 'account' }
    this.byAccount.set(s.accountId, set)
    set.add(s)
    this.open++
    return { ok: true, unsubscribe: () => this.remove(s) }
  }

  private remove(s: Subscriber) {
    const set = this.byAccount.get(s.accountId)
    if (!set?.delete(s)) return
    this.open--
    if (set.size === 0) this.byAccount.delete(s.accountId)
  }

  get subscribers(): number {
    return this.open
  }

  /** Ends every stream of the account (A12: an erasure; what a stream holds unsent cannot be taken
   * back item by item). The dashboard reconnects, and a new stream starts with what is written next. */
  closeAccount(accountId: string, reason: string) {
    for (const s of [...(this.byAccount.get(accountId) ?? [])]) {
      this.remove(s)
      s.close(reason)
    }
  }

  publish(batch: RecordsByKind) {
    if (this.byAccount.size === 0) return
    const perAccount = new Map<string, LiveFrame[]>()
    for (const item of toLiveItems(batch)) {
      if (!this.byAccount.has(item.account_id)) continue
      let list = perAccount.get(item.account_id)
      if (!list) perAccount.set(item.account_id, (list = []))
      list.push({ item, frame: sseFrame(item) })
    }
    for (const [account, frames] of perAccount) {
      for (const s of [...(this.byAccount.get(account) ?? [])]) {
        if (s.push(frames)) continue
        this.dropped++
        this.remove(s)
        s.close('subscriber too slow; reconnect to resume')
      }
    }
  }
}
