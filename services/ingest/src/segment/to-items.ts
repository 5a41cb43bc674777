// Segment messages to our own batch items (docs/api.md Segment-compatible API, H49-H52). Pure: a
// message becomes the item our contract would have been sent for it, which then passes the same
// validation (validation/validate.ts: names, sizes, timestamps, traits, H8-H31) and the same pipeline
// as /v1/events. What only Segment has is checked here: the type, the ids (userId and/or anonymousId,
// alias's previousId, group's groupId), and the shape of the envelope.
import { CONTROL_CHAR_CLASS, codePointLength, MAX_NAME_LENGTH } from '../validation/rules.js'
import type { FieldError } from '../validation/index.js'

export const SEGMENT_TYPES = ['track', 'identify', 'page', 'screen', 'group', 'alias'] as const
export type SegmentType = (typeof SEGMENT_TYPES)[number]

/** H49: the event names page and screen calls are stored under. */
export const PAGE_EVENT = 'page_viewed'
export const SCREEN_EVENT = 'screen_viewed'
/** H51: the event name group calls are stored under (the groups table is fed from it). */
export const GROUP_EVENT = '$group'

type Obj = Record<string, unknown>

export type Mapped = { ok: true; item: Obj; anonymousId?: string } | { ok: false; errors: FieldError[] }

const CONTROL = new RegExp(`[${CONTROL_CHAR_CLASS}]`)
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * An id as Segment's libraries send it: a string, or a number (analytics-python stringifies, others
 * may not). Absent: undefined, null or ''. The rules of user.id (H9, H29) apply.
 */
function readId(msg: Obj, field: string, path: string, errors: FieldError[]): string | undefined {
  const v = msg[field]
  if (v === undefined || v === null || v === '') return undefined
  const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : v
  if (typeof s !== 'string') errors.push({ path: `${path}/${field}`, message: `${field} must be a string` })
  // In characters, as the name rule counts them everywhere (rules.ts, H64).
  else if (s.length > MAX_NAME_LENGTH && codePointLength(s) > MAX_NAME_LENGTH)
    errors.push({ path: `${path}/${field}`, message: `${field} must be at most ${MAX_NAME_LENGTH} characters` })
  else if (CONTROL.test(s))
    errors.push({
      path: `${path}/${field}`,
      message: `${field} must not contain control characters or bidirectional controls`,
    })
  else return s
  return undefined
}

const objectOr = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined)

/** Page and screen (H49): the call's name and category go into the properties, unless they already name them. */
function viewProperties(msg: Obj): unknown {
  const props = msg.properties
  if (props !== undefined && !isObject(props)) return props // validation names the problem
  const out: Obj = {}
  if (typeof msg.name === 'string') out.name = msg.name
  if (typeof msg.category === 'string') out.category = msg.category
  return { ...out, ...(props ?? {}) }
}

/**
 * One Segment message (`type` given by the path for the single endpoints, else the message's own) to
 * our batch item; `path` is its JSON pointer for error messages; `batchContext` the batch's context,
 * under the message's.
 */
export function toItem(msg: unknown, type: SegmentType | undefined, path: string, batchContext?: Obj): Mapped {
  if (!isObject(msg)) return { ok: false, errors: [{ path, message: 'a message must be a JSON object' }] }
  const errors: FieldError[] = []
  const t = type ?? msg.type
  if (typeof t !== 'string' || !(SEGMENT_TYPES as readonly string[]).includes(t)) {
    return { ok: false, errors: [{ path: `${path}/type`, message: `type must be one of ${SEGMENT_TYPES.join(', ')}` }] }
  }
  const userId = readId(msg, 'userId', path, errors)
  const anonymousId = readId(msg, 'anonymousId', path, errors)
  const previousId = t === 'alias' ? readId(msg, 'previousId', path, errors) : undefined
  const groupId = t === 'group' ? readId(msg, 'groupId', path, errors) : undefined
  if (errors.length) return { ok: false, errors }
  if (t === 'alias') {
    if (userId === undefined || previousId === undefined)
      return { ok: false, errors: [{ path, message: 'alias needs userId and previousId' }] }
  } else if (userId === undefined && anonymousId === undefined) {
    return { ok: false, errors: [{ path, message: 'userId or anonymousId is required' }] }
  }
  if (t === 'group' && groupId === undefined)
    return { ok: false, errors: [{ path: `${path}/groupId`, message: 'groupId is required' }] }

  const context =
    batchContext !== undefined && isObject(msg.context)
      ? { ...batchContext, ...msg.context }
      : (msg.context ?? batchContext)
  // H52: an anonymous visitor is stored under its anonymous id until it is known.
  const item: Obj = {
    user: { id: userId ?? anonymousId },
    context,
    timestamp: msg.timestamp ?? msg.originalTimestamp,
    message_id: msg.messageId,
  }
  if (t === 'identify' || t === 'alias') {
    item.type = 'identify'
    item.traits = t === 'identify' ? msg.traits : {}
    // H50: an alias is an identify of userId that links previousId to it.
    return { ok: true, item, anonymousId: t === 'alias' ? previousId : anonymousId }
  }
  item.type = 'event'
  if (t === 'track') {
    item.event = msg.event
    item.properties = msg.properties
  } else if (t === 'group') {
    item.event = GROUP_EVENT
    item.properties = { group_id: groupId, traits: objectOr(msg.traits) ?? {} }
  } else {
    item.event = t === 'page' ? PAGE_EVENT : SCREEN_EVENT
    item.properties = viewProperties(msg)
  }
  return { ok: true, item, anonymousId }
}

// Our field names in validation's messages and paths, as the Segment body spells them.
const RENAMES: Array<[RegExp, string]> = [
  [/^\/events(?=\/|$)/, '/batch'],
  [/\/user\/id$/, '/userId'],
  [/\/message_id$/, '/messageId'],
]

/** A validation error of our item, pointed at the Segment message it came from. */
export function segmentPath(path: string, single: boolean): string {
  let p = path
  for (const [from, to] of RENAMES) p = p.replace(from, to)
  return single ? p.replace(/^\/batch\/0/, '') : p
}
