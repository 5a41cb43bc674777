// Where a Segment library puts its write key (docs/api.md Segment-compatible API, H53): the HTTP Basic
// user name with an empty password (analytics-node, analytics-python, rudder-sdk-python, the mobile
// libraries), `Authorization: Bearer` (our own clients), or the body's `writeKey` field (Segment's
// HTTP API documents it; analytics-next sends nothing else). Our `svc_live_`/`svc_test_` keys are the
// write keys. Pure: the key is given back as the Bearer header our parser reads (auth/parse-auth.ts),
// so one parser decides its format, type and errors for both APIs.

/** The Authorization header as given, a Basic one rewritten as Bearer; undefined when there is none. */
export function headerAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const m = BASIC.exec(header)
  if (m === null) return header
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  // Segment's libraries send `key:`; the password is not a secret of ours and is ignored.
  return 'Bearer ' + (colon < 0 ? decoded : decoded.slice(0, colon))
}

/** The body's `writeKey` as a Bearer header, or undefined when the body has none. */
export function bodyAuthorization(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const key = (body as { writeKey?: unknown }).writeKey
  return typeof key === 'string' && key !== '' ? 'Bearer ' + key : undefined
}

// The scheme is case-insensitive (RFC 7235 section 2.1), as for Bearer.
const BASIC = /^\s*basic\s+([A-Za-z0-9+/=_-]*)\s*$/i
