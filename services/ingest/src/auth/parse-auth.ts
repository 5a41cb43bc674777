// Authorization header parsing (docs/api.md Authentication 3-5, H1). Pure: no lookup, no
// logging (never log a key, H1); the caller hashes `key` and looks it up in the KeyTable.
//
// Decisions:
// - The scheme name is matched case-insensitively ("bearer", "BEARER"), as RFC 7235 section 2.1
//   says auth-schemes are; one or more spaces may separate it from the key (RFC 6750 1*SP),
//   and surrounding whitespace is ignored. The key itself is compared exactly: a key with an
//   upper-case "SVC_LIVE_" prefix is INVALID_KEY_FORMAT.
// - "Bearer" followed by nothing but whitespace counts as an empty header: MISSING_AUTH_HEADER.
// - A key body longer than KEY_BODY_MAX_LENGTH cannot be one we issued (they are 40 chars) and
//   is rejected as malformed before any hashing.

import { errors, type ServiceError } from '../errors.js'
import type { KeyType } from '../../../../schemas/records.js'
import { LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '../../../shared/src/accounts/key-hash.js'

export { LIVE_KEY_PREFIX, TEST_KEY_PREFIX }
/** H1: at least 32 base62 characters after the prefix. */
export const KEY_BODY_MIN_LENGTH = 32
export const KEY_BODY_MAX_LENGTH = 128
const PREFIX_LENGTH = 9 // both prefixes

export const ALL_KEY_TYPES: ReadonlySet<KeyType> = new Set<KeyType>(['live', 'test'])

export type ParsedAuthorization = { ok: true; key: string; type: KeyType } | { ok: false; error: ServiceError }

const BASE62_BODY = /^[A-Za-z0-9]+$/

function isSpace(c: number): boolean {
  return c === 32 || c === 9
}

export function parseAuthorization(
  header: string | undefined,
  acceptedTypes: ReadonlySet<KeyType> = ALL_KEY_TYPES,
): ParsedAuthorization {
  if (header === undefined) return { ok: false, error: errors.missingAuth() }
  let i = 0
  let end = header.length
  while (i < end && isSpace(header.charCodeAt(i))) i++
  while (end > i && isSpace(header.charCodeAt(end - 1))) end--
  // "Bearer" (any case) followed by at least one space
  if (end - i < 7 || header.slice(i, i + 6).toLowerCase() !== 'bearer' || !isSpace(header.charCodeAt(i + 6))) {
    return { ok: false, error: errors.missingAuth() }
  }
  i += 7
  while (i < end && isSpace(header.charCodeAt(i))) i++
  if (i === end) return { ok: false, error: errors.missingAuth() }

  const key = i === 0 && end === header.length ? header : header.slice(i, end)
  let type: KeyType
  if (key.startsWith(LIVE_KEY_PREFIX)) type = 'live'
  else if (key.startsWith(TEST_KEY_PREFIX)) type = 'test'
  else return { ok: false, error: errors.invalidKeyFormat() }

  const bodyLength = key.length - PREFIX_LENGTH
  if (
    bodyLength < KEY_BODY_MIN_LENGTH ||
    bodyLength > KEY_BODY_MAX_LENGTH ||
    !BASE62_BODY.test(key.slice(PREFIX_LENGTH)) ||
    !acceptedTypes.has(type)
  ) {
    return { ok: false, error: errors.invalidKey() }
  }
  return { ok: true, key, type }
}
