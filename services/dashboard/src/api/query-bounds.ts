// Whether a ClickHouse error is the read-only user's size bound (H23): the query reads or holds more
// rows, bytes or memory than its profile allows, and will again, so the browser is told to narrow it
// (400). Time and concurrency bounds (TIMEOUT_EXCEEDED, TOO_MANY_SIMULTANEOUS_QUERIES) may pass on a
// later try and stay 503 with Retry-After. The client gives a server error's code as a field (A9: the
// supported servers name the error type, which is how the client recognises one).
const SIZE = new Set([158, 241, 307, 396]) // TOO_MANY_ROWS, MEMORY_LIMIT_EXCEEDED, TOO_MANY_BYTES, TOO_MANY_ROWS_OR_BYTES

export function clickHouseCode(err: unknown): number | undefined {
  const code = Number((err as { code?: unknown } | undefined)?.code)
  return Number.isInteger(code) && code > 0 ? code : undefined
}

export const readsTooMuch = (err: unknown): boolean => SIZE.has(clickHouseCode(err) ?? 0)
