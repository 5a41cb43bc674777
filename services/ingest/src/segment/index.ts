// Segment's HTTP Tracking API (docs/api.md Segment-compatible API, H49-H53): routes, the write key's
// places, and the mapping of Segment messages to our items.
export { segmentRoutes, checkMessages, SEGMENT_CALL_BODY_LIMIT, SEGMENT_BATCH_BODY_LIMIT } from './routes.js'
export {
  toItem,
  segmentPath,
  SEGMENT_TYPES,
  PAGE_EVENT,
  SCREEN_EVENT,
  GROUP_EVENT,
  type SegmentType,
} from './to-items.js'
export { headerAuthorization, bodyAuthorization } from './write-key.js'
