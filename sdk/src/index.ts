// @event-tracking/sdk: a client for the event tracking API, for Node 20+ and browsers.
//
//   const client = new TrackingClient({ apiKey, baseUrl: 'https://track.example.com' })
//   client.track('signup_completed', { plan: 'pro' }, { user: 'user_1' })
//   await client.shutdown()
export {
  TrackingClient,
  SDK_NAME,
  SDK_VERSION,
  KEEPALIVE_BUDGET_BYTES,
  type ClientOptions,
  type ClientStats,
} from './client.js'
export { TrackingError, type SdkErrorCode } from './errors.js'
export { closeOnSignals } from './node.js'
export type { ItemOptions, UserInput } from './items.js'
export * from './wire.js'
