// Validation subsystem: request-body checks (H7-H11) and the wire schemas. Mapping a valid item to its
// record is in ../records/.
export * from './schemas.js'
export { validateSingle, validateBatch } from './validate.js'
export type { FieldError, EventItem, IdentifyItem, Item, BatchItemResult } from './validate.js'
export { correctTime, MAX_FUTURE_MS } from './timestamp.js'
export {
  ISO_DATE_TIME_PATTERN,
  ISO_DATE_TIME_SCHEMA_PATTERN,
  ISO_SENT_AT_SCHEMA_PATTERN,
  isIsoDateTime,
} from './timestamp.js'
