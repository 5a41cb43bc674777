// The call types a person recognises from Segment's spec (docs/api.md "Segment-compatible API",
// H49-H51): page and screen calls are events with reserved names and group calls events named $group,
// so the type is read from the name; anything else is an event, or an identify (aliases are identifies, H50).

/** @type {Record<string, string>} */
const CALL_TYPES = { page_viewed: 'page', screen_viewed: 'screen', $group: 'group' }
export const TYPES = ['event', 'page', 'screen', 'group', 'identify']
/** @param {import('./core.js').EventItem} item */
export const callType = (item) => (item.type === 'identify' ? 'identify' : CALL_TYPES[item.event ?? ''] || 'event')
