// What a refused body may keep before it leaves ingest (H65): no key, bounded size. The Authorization
// header is never read here; a key can still sit in the body (Segment's `writeKey`, docs/api.md
// Segment-compatible API) or be pasted into any value, so both are replaced before truncation, and
// truncation comes last so a key cut in half by it was already gone.
import { LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '../../../shared/src/accounts/key-hash.js'

/** Bytes (UTF-16 code units, close enough for a bound) a sample's body keeps. */
export const SAMPLE_BODY_MAX_CHARS = 2048
export const REDACTED = '[redacted]'

const KEY_FIELDS =
  /("(?:writeKey|write_key|apiKey|api_key|authorization|password|secret|token)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi
const KEY_LIKE = new RegExp(`(?:${LIVE_KEY_PREFIX}|${TEST_KEY_PREFIX})[A-Za-z0-9]*`, 'g')

/** The body text as a sample stores it: key-like values replaced, then cut to SAMPLE_BODY_MAX_CHARS. */
export function sampleBody(text: string | undefined, max = SAMPLE_BODY_MAX_CHARS): string {
  if (text === undefined || text === '') return ''
  // Only the head can be kept, so only the head (with room for a key across the cut) is scanned.
  const head = text.length > max * 2 ? text.slice(0, max * 2) : text
  const clean = head.replace(KEY_FIELDS, `$1"${REDACTED}"`).replace(KEY_LIKE, REDACTED)
  return clean.length > max ? clean.slice(0, max) : clean
}
