// Validation subsystem: request-body checks, wire schemas, event ids and record mapping.
export * from './schemas.js'
export { validateSingle, validateBatch } from './validate.js'
export type { FieldError, EventItem, IdentifyItem, Item, BatchItemResult } from './validate.js'
export { uuidv5, uuidv7, uuidv7Time, eventIdFor, EVENT_ID_NAMESPACE } from './event-id.js'
export { toEventRecord, toIdentifyRecord, correctTime, parseTimestamp, MAX_FUTURE_MS } from './to-record.js'
export type { RequestContext } from './to-record.js'
export { ISO_DATE_TIME_PATTERN, isIsoDateTime } from './timestamp.js'
