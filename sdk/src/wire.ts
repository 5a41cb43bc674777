// The HTTP bodies of POST /v1/events as TypeScript types, and the API's limits. They mirror the
// ingest's OpenAPI document (GET /openapi.json); sdk/test/contract.test.ts checks both ways that
// these types and the API's schemas agree, and validates built payloads against the document, so
// the SDK cannot drift from the API without a failing test.

/** Events per batch request (docs/api.md Limits). */
export const MAX_BATCH_ITEMS = 100
/** Body limit of /v1/events, measured after decompression (H7, ingest BATCH_BODY_LIMIT_BYTES default). */
export const BATCH_BODY_LIMIT_BYTES = 10_000_000
/** One event's JSON at most (H9); larger items are rejected by the API item by item. */
export const MAX_EVENT_BYTES = 32 * 1024
/** message_id length (H16). */
export const MAX_MESSAGE_ID_LENGTH = 100
/** User ids and event names (H9). */
export const MAX_NAME_LENGTH = 255

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: unknown }

export interface WireUser {
  id: string
  email?: string
  traits?: JsonObject
  [key: string]: unknown
}

export interface WireEventItem {
  type: 'event'
  event: string
  user: WireUser
  timestamp?: string
  properties?: JsonObject
  context?: JsonObject
  message_id?: string
  /** The visitor's anonymous id (docs/api.md, H71). */
  anonymous_id?: string
  [key: string]: unknown
}

export interface WireIdentifyItem {
  type: 'identify'
  user: WireUser
  traits?: JsonObject
  timestamp?: string
  context?: JsonObject
  message_id?: string
  /** With an anonymous id, the identify links it to user.id (H50, H71). */
  anonymous_id?: string
  [key: string]: unknown
}

export type WireItem = WireEventItem | WireIdentifyItem

export interface WireBatch {
  sent_at: string
  events: WireItem[]
  [key: string]: unknown
}

export interface WireItemResult {
  index: number
  success: boolean
  event_id?: string
  error?: { code: string; message: string }
}

/** 200 answer of /v1/events (H12). */
export interface WireSuccessBody {
  success: true
  data: { processed_count: number; failed_count: number; results: WireItemResult[] }
  events_processed: number
}

/** Error answer, shape 1 (docs/api.md Errors, H8, H11). */
export interface WireErrorBody {
  success: false
  error: {
    code: string
    message: string
    details?: { errors?: Array<{ path: string; message: string }>; results?: WireItemResult[]; [key: string]: unknown }
  }
}
