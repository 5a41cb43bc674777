// Validated items to the Avro records written to Kafka (schemas/records.ts), applying the
// server-side rules: clock-skew correction (H13), server context (H14) and event ids (H12, H16).
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import type { EventIds } from './event-id.js'
import { correctTime, MAX_FUTURE_MS } from '../validation/timestamp.js'
import type { EventItem, IdentifyItem } from '../validation/validate.js'

export { correctTime, MAX_FUTURE_MS }

export interface RequestContext {
  accountId: string
  environment: 'live' | 'test'
  keyId: string
  /** Server time of receipt, ms (H13). */
  receivedAt: number
  /** The batch's sent_at in ms; null on /v1/event. */
  sentAt: number | null
  ip: string | null
  userAgent: string | null
  /**
   * `"ip":...,"user_agent":...}` of the request, written by the first item's mapping and reused by
   * the others (they share ip and user agent); undefined until then. Per request, not per process (H77).
   */
  serverFields?: string
}

/** H14: the server's ip and user_agent are added to the client context and win over client values. */
function contextJson(context: Record<string, unknown>, rc: RequestContext): string {
  // The common context names neither: its JSON with the server's two fields appended is the
  // JSON of the merged object (same keys, same order), without building that object (bench/HISTORY.md).
  if (!hasOwn(context, 'ip') && !hasOwn(context, 'user_agent') && !hasOwn(context, '__proto__')) {
    const json = JSON.stringify(context)
    return json.length === 2 ? '{' + serverFields(rc) : json.slice(0, -1) + ',' + serverFields(rc)
  }
  // A for-in copy, not an object spread: V8's spread of a JSON.parse object is several times
  // slower (bench/HISTORY.md; the same as clickhouse/rows.ts). Same keys in the same order. A
  // `__proto__` key (an item holding one is refused by validation, H31) would set the prototype here.
  const out: Record<string, unknown> = {}
  for (const k in context) {
    if (k === '__proto__') return JSON.stringify({ ...context, ip: rc.ip, user_agent: rc.userAgent })
    out[k] = context[k]
  }
  out.ip = rc.ip
  out.user_agent = rc.userAgent
  return JSON.stringify(out)
}

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k)

/** `"ip":...,"user_agent":...}` for the request, written once for all its items. */
function serverFields(rc: RequestContext): string {
  return (rc.serverFields ??= `"ip":${JSON.stringify(rc.ip)},"user_agent":${JSON.stringify(rc.userAgent)}}`)
}

/** `ids` is the process's id maker (H77), passed in by the pipeline (pipeline/accept-items.ts). */
export function toEventRecord(item: EventItem, rc: RequestContext, ids: EventIds): EventRecord {
  // The client's time as validation read it (no second parse), corrected for skew (H13).
  const t = correctTime(item.timestamp ?? null, rc.sentAt, rc.receivedAt)
  const traits = item.user.traits
  const traitEmail =
    traits !== undefined && typeof traits.email === 'string' && traits.email !== '' ? traits.email : undefined
  return {
    event_id: ids.forItem(rc.accountId, rc.environment, item.message_id, rc.receivedAt),
    account_id: rc.accountId,
    environment: rc.environment,
    key_id: rc.keyId,
    event: item.event,
    user_id: item.user.id,
    user_email: item.user.email ?? traitEmail ?? null,
    // H10: traits on an event's user also update the profile; null when none were sent.
    user_traits: traits === undefined ? null : JSON.stringify(traits),
    timestamp: t.timestamp,
    original_timestamp: t.original,
    received_at: rc.receivedAt,
    sent_at: rc.sentAt,
    timestamp_flagged: t.flagged,
    properties: JSON.stringify(item.properties),
    context: contextJson(item.context, rc),
    ip: rc.ip,
    user_agent: rc.userAgent,
    message_id: item.message_id ?? null,
    anonymous_id: item.anonymous_id ?? null,
  }
}

export function toIdentifyRecord(item: IdentifyItem, rc: RequestContext, ids: EventIds): IdentifyRecord {
  const t = correctTime(item.timestamp ?? null, rc.sentAt, rc.receivedAt)
  return {
    event_id: ids.forItem(rc.accountId, rc.environment, item.message_id, rc.receivedAt),
    account_id: rc.accountId,
    environment: rc.environment,
    key_id: rc.keyId,
    user_id: item.user.id,
    email: item.email ?? null,
    traits: JSON.stringify(item.traits),
    timestamp: t.timestamp,
    original_timestamp: t.original,
    received_at: rc.receivedAt,
    sent_at: rc.sentAt,
    timestamp_flagged: t.flagged,
    context: contextJson(item.context, rc),
    ip: rc.ip,
    user_agent: rc.userAgent,
    message_id: item.message_id ?? null,
    anonymous_id: item.anonymous_id ?? null,
  }
}
