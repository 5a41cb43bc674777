// Helpers of the HTTP contract suite (test/contract/*.integration.test.ts, docs/api.md). They live
// here, not under test/, because tap runs every file below a test/ folder as a test.
import { request } from 'node:http'
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  text: string
  body: any
}

/**
 * One HTTP request with exactly the headers given (fetch would add Content-Type and others).
 * `body` may be a string or bytes; the response body is parsed as JSON when it is JSON.
 */
export function http(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(path, baseUrl)
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body)
    const headers: Record<string, string> = { ...init.headers }
    if (
      body !== undefined &&
      !init.chunked &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')
    ) {
      headers['content-length'] = String(body.length)
    }
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: init.method ?? 'POST',
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let parsed: any = text
          try {
            parsed = JSON.parse(text)
          } catch {
            /* not JSON */
          }
          const h: Record<string, string> = {}
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v
          resolve({ status: res.statusCode ?? 0, headers: h, text, body: parsed })
        })
        res.on('error', reject)
      },
    )
    // The server may answer (413) before it has read a large body; a reset after that is fine.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') return
      reject(err)
    })
    if (body !== undefined && init.chunked) {
      // Transfer-Encoding: chunked, no Content-Length: the server must count as it reads.
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024))
      req.end()
    } else if (body !== undefined) req.end(body)
    else req.end()
  })
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Waits, if needed, so that at least `minLeftMs` remain in the current fixed 60 s window
 * (H3): a limit test must not straddle a window boundary. Waits at most minLeftMs.
 */
export async function freshMinute(minLeftMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < minLeftMs) await sleep(left + 250)
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
/** A well-formed key (H1) that no account owns. */
export function unknownKey(type: 'live' | 'test' = 'live', length = 40): string {
  const bytes = randomBytes(length)
  let s = ''
  for (const b of bytes) s += BASE62[b % 62]
  return `svc_${type}_${s}`
}

export const RATE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-window',
] as const

/** Headers as a plain lower-case record, from fetch Headers or a RawResponse. */
export function headerRecord(h: Headers | Record<string, string>): Record<string, string> {
  if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') {
    const out: Record<string, string> = {}
    ;(h as Headers).forEach((v, k) => (out[k.toLowerCase()] = v))
    return out
  }
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]))
}

/** Text that would betray internals in a response body (stack frames, source paths). */
export const INTERNALS = /\bat [\w.<>]+ \(|node_modules|\.ts:\d+|\.js:\d+|kafkajs|KafkaJS|ECONNREFUSED|Error: /

// ---- a small JSON Schema checker, enough for the OpenAPI document's component schemas
// (type, const, enum, properties, required, additionalProperties, maxProperties, propertyNames,
// items, min/maxItems, min/maxLength, pattern, minimum/maximum, anyOf/oneOf/allOf, $ref to #/...).
// No dependency.

type Schema = Record<string, any>

export function checkJsonSchema(schema: Schema, value: unknown, root: Schema, path = ''): string[] {
  if (schema.$ref !== undefined) {
    const ref = String(schema.$ref)
    if (!ref.startsWith('#/')) return [`${path}: unsupported $ref ${ref}`]
    let target: any = root
    for (const part of ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    if (target === undefined) return [`${path}: unresolved $ref ${ref}`]
    return checkJsonSchema(target, value, root, path)
  }
  const errs: string[] = []
  const at = path || '/'
  if ('const' in schema && !deepEqual(schema.const, value))
    errs.push(`${at}: expected const ${JSON.stringify(schema.const)}`)
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => deepEqual(e, value)))
    errs.push(`${at}: not in enum`)
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (!types.some((t) => typeMatches(t, value))) {
      errs.push(
        `${at}: expected ${types.join('|')}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`,
      )
      return errs
    }
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength)
      errs.push(`${at}: shorter than ${schema.minLength}`)
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength)
      errs.push(`${at}: longer than ${schema.maxLength}`)
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      errs.push(`${at}: does not match ${schema.pattern}`)
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errs.push(`${at}: below ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) errs.push(`${at}: above ${schema.maximum}`)
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      errs.push(`${at}: fewer than ${schema.minItems} items`)
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      errs.push(`${at}: more than ${schema.maxItems} items`)
    if (schema.items !== undefined)
      value.forEach((v, i) => errs.push(...checkJsonSchema(schema.items, v, root, `${path}/${i}`)))
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    for (const r of schema.required ?? []) if (!(r in obj)) errs.push(`${path}/${r}: required`)
    const props: Record<string, Schema> = schema.properties ?? {}
    const names = Object.keys(obj)
    if (schema.maxProperties !== undefined && names.length > schema.maxProperties)
      errs.push(`${at}: more than ${schema.maxProperties} properties`)
    if (schema.propertyNames !== undefined)
      for (const k of names) errs.push(...checkJsonSchema(schema.propertyNames, k, root, `${path}/${k} (name)`))
    for (const [k, v] of Object.entries(obj)) {
      if (props[k] !== undefined) errs.push(...checkJsonSchema(props[k], v, root, `${path}/${k}`))
      else if (schema.additionalProperties === false) errs.push(`${path}/${k}: additional property not allowed`)
      else if (typeof schema.additionalProperties === 'object')
        errs.push(...checkJsonSchema(schema.additionalProperties, v, root, `${path}/${k}`))
    }
  }
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) errs.push(...checkJsonSchema(s, value, root, path))
  if (
    Array.isArray(schema.anyOf) &&
    !schema.anyOf.some((s: Schema) => checkJsonSchema(s, value, root, path).length === 0)
  ) {
    errs.push(`${at}: matches none of anyOf`)
  }
  if (
    Array.isArray(schema.oneOf) &&
    schema.oneOf.filter((s: Schema) => checkJsonSchema(s, value, root, path).length === 0).length !== 1
  ) {
    errs.push(`${at}: does not match exactly one of oneOf`)
  }
  return errs
}

function typeMatches(t: string, v: unknown): boolean {
  switch (t) {
    case 'null':
      return v === null
    case 'array':
      return Array.isArray(v)
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v)
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v)
    case 'number':
      return typeof v === 'number' && Number.isFinite(v)
    default:
      return typeof v === t
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The assertions the contract helpers use (a tap Test). */
export type Asserts = Pick<Test, 'equal' | 'same' | 'ok' | 'notOk' | 'match' | 'notMatch' | 'type'>

/**
 * A shape-1 error (docs/api.md Errors) with `status` and `code`, the rate-limit headers (H2) and no
 * internals in the body.
 */
export function expectError(
  t: Asserts,
  res: { status: number; headers: Headers | Record<string, string>; body: any; text?: string },
  status: number,
  code: string,
  what = code,
): void {
  t.equal(res.status, status, `${what}: HTTP ${status}`)
  t.equal(res.body?.success, false, `${what}: success false`)
  t.equal(res.body?.error?.code, code, `${what}: error.code ${code}`)
  t.type(res.body?.error?.message, 'string', `${what}: error.message is a string`)
  const h = headerRecord(res.headers)
  for (const name of RATE_HEADERS) t.match(h[name], /^\d+$/, `${what}: ${name} header`)
  t.equal(h['x-ratelimit-window'], '60', `${what}: X-RateLimit-Window 60`)
  t.notMatch(res.text ?? JSON.stringify(res.body), INTERNALS, `${what}: no stack trace or internals`)
}
