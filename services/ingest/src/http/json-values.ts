// H25: bounded parse work. JSON.parse costs time in proportion to the values it builds, and a batch's
// fields other than `sent_at` and `events` are parsed only to be dropped: 3,000,000 `{}` in an ignored
// field took a second of event loop each. Before parsing, one pass over the bytes counts the JSON
// structure (`{`, `[`, `,` and `:` outside strings: at least one per value, and each one byte) and
// refuses a body with more than any valid request of its kind can hold:
// - `/v1/event`: the body is the event, whose JSON is at most MAX_EVENT_BYTES (H9);
// - `/v1/events`: at most MAX_BATCH_ITEMS such events under `events` (H11), and ENVELOPE_VALUES
//   everywhere else.
// Whitespace and strings cost nothing here, so a valid body at the size limit always passes.
import { MAX_BATCH_ITEMS, MAX_EVENT_BYTES } from '../validation/schemas.js'

/** Structure allowed outside the batch's items: `{`, two `:` and a `,` are all a valid envelope needs. */
export const ENVELOPE_VALUES = 1024

/**
 * Bodies up to this size are not scanned: they hold at most this many values, whose parse costs
 * little, while the scan would add half a parse to every typical request (a batch of 100 events).
 */
export const SCAN_FROM_CHARS = 64 * 1024

export type BodyKind = 'single' | 'batch'

export interface JsonValuesProblem {
  /** '' for the envelope (outside `events`), `/events` for the items. */
  path: string
  max: number
}

export function maxValues(kind: BodyKind): { events: number; envelope: number } {
  return kind === 'single'
    ? { events: 0, envelope: MAX_EVENT_BYTES }
    : { events: MAX_BATCH_ITEMS * (MAX_EVENT_BYTES + 1), envelope: ENVELOPE_VALUES }
}

const BACKSLASH = 0x5c

/** The first bound `body` (JSON text, not yet parsed) passes, or undefined when it passes none. */
export function jsonValuesProblem(body: string, kind: BodyKind): JsonValuesProblem | undefined {
  if (body.length <= SCAN_FROM_CHARS) return undefined
  const max = maxValues(kind)
  let envelope = 0
  let events = 0
  let depth = 0
  // Batch only: whether the top-level member being read is `events`, and whether a key comes next.
  let inEvents = false
  let expectKey = false
  let keyIsEvents = false
  const n = body.length
  for (let i = 0; i < n; i++) {
    const c = body.charCodeAt(i)
    if (c === 0x22) {
      // "
      const end = stringEnd(body, i + 1)
      if (kind === 'batch' && depth === 1 && expectKey) keyIsEvents = isEventsKey(body, i + 1, end)
      i = end
      continue
    }
    if (c === 0x7b || c === 0x5b)
      depth++ // { [
    else if (c === 0x7d || c === 0x5d) {
      depth-- // } ]
      continue
    } else if (c === 0x2c) {
      // ,
      if (depth === 1) {
        expectKey = true
        inEvents = false
      }
    } else if (c === 0x3a) {
      // :
      if (depth === 1) {
        expectKey = false
        inEvents = keyIsEvents
      }
    } else continue
    if (depth === 1 && c === 0x7b) expectKey = true
    if (inEvents && depth >= 2) {
      if (++events > max.events) return { path: '/events', max: max.events }
    } else if (++envelope > max.envelope) return { path: '', max: max.envelope }
  }
  return undefined
}

/** Index of the quote closing the string whose first character is at `from` (or the end of the body). */
function stringEnd(body: string, from: number): number {
  let i = from
  for (;;) {
    const q = body.indexOf('"', i)
    if (q < 0) return body.length
    let slashes = 0
    while (q - 1 - slashes >= from && body.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++
    if (slashes % 2 === 0) return q
    i = q + 1
  }
}

/** Whether the key between `start` and `end` is `events`; a key with escapes is read as JSON. */
function isEventsKey(body: string, start: number, end: number): boolean {
  if (end - start === 6) return body.startsWith('events', start)
  let escaped = false
  for (let i = start; i < end && !escaped; i++) escaped = body.charCodeAt(i) === BACKSLASH
  if (!escaped) return false
  try {
    return JSON.parse(body.slice(start - 1, end + 1)) === 'events'
  } catch {
    return false
  }
}
