// The 200 body's text (H12): the routes' answer step (http/answer.ts) writes the pipeline's outcomes with it.
import type { ItemOutcome } from './item-outcomes.js'

/**
 * Success body: shape A plus `events_processed` (H12), as an object. The routes answer with
 * `successJson`, which writes this object's JSON text by hand; the tests keep this as the reference
 * that text must equal.
 */
export function successBody(results: ItemOutcome[]) {
  const processed = results.filter((r) => r.success).length
  return {
    success: true,
    data: { processed_count: processed, failed_count: results.length - processed, results },
    events_processed: processed,
  }
}

/** What JSON.stringify writes other than as itself: quote, backslash, control characters, surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes U+0000-U+001F, so the pattern names them
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * `JSON.stringify(successBody(results))`, the same text, written without stringifying an object
 * per result: by hand it costs about half as much for a batch of 100, the flattening the socket write
 * does included (figures in bench/HISTORY.md). An accepted item's text is
 * written from its parts; any other outcome (a refused item, with an error message from the client's
 * data) goes through JSON.stringify.
 */
export function successJson(results: readonly ItemOutcome[]): string {
  let processed = 0
  let items = ''
  for (let i = 0; i < results.length; i++) {
    const r = results[i]
    const sep = i === 0 ? '' : ','
    if (r == null) {
      items += sep + 'null'
      continue
    }
    // An accepted item's event_id is a UUID this service made (records/event-id.ts), which JSON
    // never escapes; the cheap check keeps any other string on JSON.stringify's path.
    if (
      r.success === true &&
      r.error === undefined &&
      typeof r.event_id === 'string' &&
      !NEEDS_ESCAPE.test(r.event_id) &&
      Number.isSafeInteger(r.index)
    ) {
      processed++
      items += sep + '{"index":' + r.index + ',"success":true,"event_id":"' + r.event_id + '"}'
    } else {
      if (r.success) processed++
      items += sep + JSON.stringify(r)
    }
  }
  return (
    '{"success":true,"data":{"processed_count":' +
    processed +
    ',"failed_count":' +
    (results.length - processed) +
    ',"results":[' +
    items +
    ']},"events_processed":' +
    processed +
    '}'
  )
}
