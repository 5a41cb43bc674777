// Cutting the queue into request bodies: at most maxItems items and maxBytes bytes of JSON each.
// Items are serialized once, when created, so a body is the items' JSON joined, and its size is
// known exactly before it is sent. Pure functions, unit-tested.
import type { WireItem } from './wire.js'

export interface Queued {
  item: WireItem
  /** The item's JSON text. */
  json: string
  /** UTF-8 size of `json`. */
  bytes: number
  /** Creation order; flush() waits for the items up to a sequence number. */
  seq: number
}

const encoder = new TextEncoder()

export function utf8Bytes(s: string): number {
  // Fast path for ASCII, which most payloads are.
  let ascii = true
  for (let i = 0; i < s.length; i++)
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false
      break
    }
  return ascii ? s.length : encoder.encode(s).length
}

/** Bytes of `{"sent_at":"<24-char ISO time>","events":[]}` around the items. */
export const ENVELOPE_BYTES = utf8Bytes(JSON.stringify({ sent_at: new Date(0).toISOString(), events: [] }))

/** Size of a body carrying items of these sizes (commas between them included). */
export function bodyBytes(itemBytes: number[]): number {
  return ENVELOPE_BYTES + itemBytes.reduce((a, b) => a + b, 0) + Math.max(0, itemBytes.length - 1)
}

/**
 * How many items from the head of `queue` go into the next body: as many as fit both limits, and
 * at least one (an item too large for any body is refused when created, never queued).
 * `full` says whether the body is as full as the limits allow, so it need not wait for more items.
 */
export function takeCount(
  queue: ReadonlyArray<Pick<Queued, 'bytes'>>,
  maxItems: number,
  maxBytes: number,
): { count: number; full: boolean } {
  let size = ENVELOPE_BYTES
  let n = 0
  while (n < queue.length && n < maxItems) {
    const add = queue[n].bytes + (n > 0 ? 1 : 0)
    if (n > 0 && size + add > maxBytes) return { count: n, full: true }
    size += add
    n++
  }
  return { count: n, full: n === maxItems || n < queue.length }
}

/** The body text for these items, sent at `sentAt`. */
export function batchBody(items: ReadonlyArray<Pick<Queued, 'json'>>, sentAt: Date): string {
  return `{"sent_at":${JSON.stringify(sentAt.toISOString())},"events":[${items.map((q) => q.json).join(',')}]}`
}
