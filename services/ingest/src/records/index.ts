// Records: how a validated item becomes the Event or Identify record stored on Kafka (H10, H12,
// H13, H16): its event_id, the corrected time, the merged traits.
export { EventIds, uuidv7Time, EVENT_ID_NAMESPACE } from './event-id.js'
export { toEventRecord, toIdentifyRecord } from './to-record.js'
export type { RequestContext } from './to-record.js'
