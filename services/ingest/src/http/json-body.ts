// H2 step 3, H7, H24, H25: content type, the body read within its limits, then JSON.
//
// One reader for every request (http/body-reader.ts): the body arrives as chunks, inflated by
// node:zlib for gzip, deflate and br, counted after decompression against the size limit, the
// inflate ratio, the read deadline and the bytes in flight per account and per instance
// (limits/body-bytes-in-flight.ts); then one decode, a count of its JSON structure against what a valid
// request of its kind can hold (http/json-values.ts), and one JSON.parse. 415 for the type or coding,
// 413 over the limit or the ratio, 408 past the deadline, 429/503 past the in-flight budgets, 400
// JSON_TOO_COMPLEX, 400 INVALID_JSON for an empty body, bad JSON or a `__proto__` key; a leading BOM
// is dropped.
import type Koa from 'koa'
import type { IncomingMessage } from 'node:http'
import { errors } from '../errors.js'
import type { BodyBytesInFlight } from '../limits/index.js'
import { contentCoding, readBody } from './body-reader.js'
import { jsonValuesProblem, type BodyKind } from './json-values.js'
import type { Ctx } from './context.js'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i

export interface JsonBodyOptions {
  kind: BodyKind
  /** Bytes after decompression (H7). */
  limit: number
  maxInflateRatio: number
  readTimeoutMs: number
  /** The in-flight budgets (H24); without them nothing is counted (tests of the reader alone). */
  inFlight?: BodyBytesInFlight
  /** Also take `text/plain` as JSON: what Segment's mobile and browser libraries send (H53). */
  textPlain?: boolean
}

const TEXT_PLAIN = /^text\/plain\s*(?:;|$)/i

export function jsonBody(o: JsonBodyOptions) {
  const read = { limit: o.limit, maxInflateRatio: o.maxInflateRatio, timeoutMs: o.readTimeoutMs }
  return async (ctx: Ctx, next: Koa.Next) => {
    const headers = ctx.req.headers
    const type = headers['content-type'] ?? ''
    if (!JSON_TYPE.test(type) && !(o.textPlain && TEXT_PLAIN.test(type))) throw errors.unsupportedMediaType()
    const coding = contentCoding(headers['content-encoding'])
    if (typeof coding === 'object') throw errors.unsupportedEncoding(coding.unsupported)
    if (coding === 'identity' && Number(headers['content-length']) > o.limit) throw errors.payloadTooLarge(o.limit)
    const account = ctx.state.auth?.account.account_id ?? ''
    let held = 0
    const take = (n: number) => {
      o.inFlight?.take(account, n)
      held += n
    }
    try {
      const text = decode(await readBody(ctx.req, coding, read, take), type)
      if (text === '') throw errors.invalidJson('the body is empty')
      const problem = jsonValuesProblem(text, o.kind)
      if (problem) throw errors.jsonTooComplex(problem.path, problem.max)
      ;(ctx.request as any).body = parseJson(text)
      ;(ctx.request as any).rawBody = text
    } finally {
      // Read and parsed: what the request holds from here on is its items, bounded by validation.
      o.inFlight?.give(account, held)
    }
    await next()
  }
}

/** The body as text in its charset (UTF-8 unless said otherwise), a leading BOM dropped; 415 for an unknown charset. */
function decode(body: Buffer, type: string): string {
  const charset = CHARSET.exec(type)?.[1]?.toLowerCase() ?? 'utf-8'
  let text: string
  if (charset === 'utf-8' || charset === 'utf8') text = body.toString('utf8')
  else {
    try {
      text = new TextDecoder(charset).decode(body)
    } catch {
      throw errors.unsupportedMediaType()
    }
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The whole body as UTF-8 text (a leading BOM dropped), no coding, no budget; 413 past `limit` bytes (bench/koa-body.ts). */
export async function readUtf8(req: IncomingMessage, limit: number): Promise<string> {
  return decode(
    await readBody(req, 'identity', { limit, maxInflateRatio: 1, timeoutMs: 60_000 }, () => undefined),
    'application/json',
  )
}

/**
 * JSON.parse, refusing a `__proto__` key of the body's own top level (the batch envelope, or the one
 * event) with 400 INVALID_JSON; 400 INVALID_JSON for text that is not JSON. A `__proto__` key deeper
 * down is left to validation, which refuses only the item holding it (H31): JSON.parse makes it an
 * own property, harmless until something copies it by assignment, and nothing does before validation.
 */
export function parseJson(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw errors.invalidJson(String((err as Error).message).slice(0, 200))
  }
  if (hasProtoKey(value)) throw errors.invalidJson('Object contains forbidden prototype property')
  return value
}

/** Whether the parsed body is an object with its own `__proto__` key (escaped spellings parse to the same key). */
function hasProtoKey(root: unknown): boolean {
  return root !== null && typeof root === 'object' && Object.hasOwn(root, '__proto__')
}
