// Which origin a browser is told it may read /v1/* answers from (H15). Access-Control-Allow-Origin
// takes one origin or `*`, never a list: with CORS_ORIGINS set to a list, the request's Origin is
// echoed when it is on the list (with Vary: Origin, so caches keep answers per origin), and no
// header is sent otherwise, which the browser treats as a refusal.

/** `*`, or the allowed origins; parsed once from CORS_ORIGINS ("*" or "https://a.example,https://b.example"). */
export type CorsPolicy = '*' | ReadonlySet<string>

export function parseCorsOrigins(raw: string): CorsPolicy {
  const list = raw
    .split(',')
    .map((s) => s.trim().replace(/\/+$/, ''))
    .filter(Boolean)
  return list.length === 0 || list.includes('*') ? '*' : new Set(list.map((o) => o.toLowerCase()))
}

/** The Access-Control-Allow-Origin value for a request from `origin`, or undefined for none. */
export function allowedOrigin(policy: CorsPolicy, origin: string | undefined): string | undefined {
  if (policy === '*') return '*'
  if (!origin) return undefined
  return policy.has(origin.toLowerCase()) ? origin : undefined
}
