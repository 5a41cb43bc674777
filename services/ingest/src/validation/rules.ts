// The body rules of POST /v1/event and /v1/events, once (H64): bounds, patterns and which fields
// they apply to. The hand-written validator (validate.ts, the hot path) and the TypeBox schemas
// (schemas.ts, which publish /openapi.json) both read this table, and rules.test.ts puts a value
// just inside and just outside every bound through both, so the two cannot drift apart.
import { ISO_DATE_TIME_SCHEMA_PATTERN, ISO_SENT_AT_SCHEMA_PATTERN } from './timestamp.js'

/**
 * C0/C1 control characters (H9) and the bidirectional embedding, override and isolate controls
 * U+202A-U+202E and U+2066-U+2069 (H29), as the body of a character class. Source text, valid in a
 * RegExp and in a JSON Schema pattern.
 */
export const CONTROL_CHAR_CLASS = '\\x00-\\x1F\\x7F-\\x9F\\u202A-\\u202E\\u2066-\\u2069'
/** No control characters (H9, H29). */
export const NO_CONTROL_CHARS_PATTERN = `^[^${CONTROL_CHAR_CLASS}]*$`
/**
 * White space beyond the control characters, as JavaScript's \s has it, spelled out: other regex
 * engines (Python's, in API fuzzers) give \s another set.
 */
const WHITE_SPACE_CLASS = ' \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF'
/**
 * H30: a plausible e-mail address: one `@` between a non-empty local part and domain, no white
 * space and no control characters; or the empty string, which means no e-mail (as the projector reads it).
 */
const EMAIL_CHAR = `[^@${CONTROL_CHAR_CLASS}${WHITE_SPACE_CLASS}]`
export const EMAIL_PATTERN = `^(?:${EMAIL_CHAR}+@${EMAIL_CHAR}+)?$`

/**
 * A string field's rule, in JSON Schema's words so the schemas can spread it. Lengths are in
 * characters (Unicode code points), as JSON Schema counts them and the validator does.
 */
export interface StringRule {
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
}

/** H9: names and trait keys, in characters. */
const NAME_LENGTH = 255

/** The rules, each with the decision that sets it. */
export const BODY_RULES = {
  /** H9, H29: event names, user ids, anonymous ids (H71): non-empty, bounded, no control characters. */
  name: { minLength: 1, maxLength: NAME_LENGTH, pattern: NO_CONTROL_CHARS_PATTERN },
  /** H30: at most RFC 5321's path limit of 256 less the angle brackets; '' means none. */
  email: { maxLength: 254, pattern: EMAIL_PATTERN },
  /** H16: the client's message id, from which the event_id is derived. */
  messageId: { minLength: 1, maxLength: 100 },
  /** H9, H13: an event time, stored only from the epoch on. */
  timestamp: { pattern: ISO_DATE_TIME_SCHEMA_PATTERN },
  /** H13: a batch's sent_at, never stored as an event time: any year. */
  sentAt: { pattern: ISO_SENT_AT_SCHEMA_PATTERN },
  /**
   * H28: top-level trait keys per item (an identify's user.traits and traits merged; an event's
   * user.traits), each of at most the length of a name (H9). Each key becomes one user_traits row,
   * so this bounds the rows one item can write.
   */
  traits: { maxKeys: 100, maxKeyLength: NAME_LENGTH },
  /** docs/api.md Limits: items per batch request. */
  batch: { minItems: 1, maxItems: 100 },
  /**
   * H9: one event's JSON (as JSON.stringify would write it), in bytes. H25: objects and arrays
   * nest at most maxDepth levels inside an event, counted from its top-level field
   * (properties: {a: {b: 1}} is 2 levels): deeper bodies are refused with 400 rather than
   * overflow the stack; 32 is far beyond what analytics properties use.
   */
  event: { maxBytes: 32 * 1024, maxDepth: 32 },
} as const satisfies Record<string, StringRule | Record<string, number>>

export const MAX_NAME_LENGTH = BODY_RULES.name.maxLength
export const MAX_TRAIT_KEYS = BODY_RULES.traits.maxKeys
export const MAX_TRAIT_KEY_LENGTH = BODY_RULES.traits.maxKeyLength
export const MAX_EMAIL_LENGTH = BODY_RULES.email.maxLength
export const MAX_MESSAGE_ID_LENGTH = BODY_RULES.messageId.maxLength
export const MAX_EVENT_BYTES = BODY_RULES.event.maxBytes
export const MAX_NESTING_DEPTH = BODY_RULES.event.maxDepth
export const MAX_BATCH_ITEMS = BODY_RULES.batch.maxItems

/** Length in Unicode code points, the unit of every maxLength above. */
export function codePointLength(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}
