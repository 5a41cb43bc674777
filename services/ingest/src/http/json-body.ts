// H2 step 3, H7: content type, size after decompression, then JSON.
//
// Two readers with one contract. The common request -- `application/json` (utf-8), no content
// coding -- is read in one pass straight from the socket: chunks, one concat, one decode, one
// JSON.parse (issue 10: koa-bodyparser, co-body, raw-body and their type checks cost more per
// single event than validation and Avro together). Everything else (gzip, deflate, br, other
// charsets, `+json` types) goes through koa-bodyparser as before. Both refuse the same inputs the
// same way: 415 for the type or coding, 413 over the limit, 400 INVALID_JSON for an empty body,
// bad JSON or a `__proto__` key (co-body's onProtoPoisoning 'error'); a leading BOM is dropped, as
// raw-body's decoder does.
import type Koa from 'koa'
import type { IncomingMessage } from 'node:http'
import bodyParser from 'koa-bodyparser'
import { errors } from '../errors.js'
import type { Ctx } from './context.js'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i
/** What the one-pass reader takes: plain JSON, no parameter or only charset=utf-8. */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i

export function jsonBody(limit: number) {
  const parse = bodyParser({
    enableTypes: ['json'],
    // Everything JSON_TYPE lets through must be parsed, or a `+json` body would read as empty.
    extendTypes: { json: ['application/*+json'] },
    jsonLimit: limit as unknown as string,
    strict: false,
    onerror: (err: any) => {
      if (err?.status === 413 || err?.type === 'entity.too.large') throw errors.payloadTooLarge(limit)
      if (err?.status === 415 || err?.type === 'encoding.unsupported') throw errors.unsupportedMediaType()
      throw errors.invalidJson(err?.message ? String(err.message).slice(0, 200) : undefined)
    },
  })
  return async (ctx: Ctx, next: Koa.Next) => {
    const headers = ctx.req.headers
    const type = headers['content-type'] ?? ''
    if (!JSON_TYPE.test(type)) throw errors.unsupportedMediaType()
    const declared = Number(headers['content-length'])
    const coding = headers['content-encoding']
    const encoded = coding ? coding.trim().toLowerCase() : 'identity'
    if (encoded === 'identity' && declared > limit) throw errors.payloadTooLarge(limit)
    if (encoded !== 'identity' && encoded !== 'gzip' && encoded !== 'deflate' && encoded !== 'br') throw errors.unsupportedMediaType()
    if (encoded === 'identity' && PLAIN_JSON.test(type)) {
      const text = await readUtf8(ctx.req, limit)
      if (text === '') throw errors.invalidJson('the body is empty')
      ;(ctx.request as any).body = parseJson(text)
      ;(ctx.request as any).rawBody = text
      return next()
    }
    // Content codings are case-insensitive (RFC 9110 8.4.1) but the inflater matches them
    // exactly: hand it the normalized name, so `Content-Encoding: GZIP` is not a 415.
    headers['content-encoding'] = encoded
    await parse(ctx as any, async () => undefined)
    if ((ctx.request as any).rawBody === '' || (ctx.request as any).rawBody === undefined) {
      throw errors.invalidJson('the body is empty')
    }
    await next()
  }
}

/** The whole body as UTF-8 text (a leading BOM dropped); 413 once more than `limit` bytes arrived. */
export function readUtf8(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('aborted', onAborted)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        // Stop buffering; Node discards the rest of the body when the response ends.
        req.pause()
        reject(errors.payloadTooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
      const text = buf.toString('utf8')
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
    }
    const onError = (err: Error) => {
      cleanup()
      reject(errors.invalidJson(`the body could not be read: ${err.message}`.slice(0, 200)))
    }
    const onAborted = () => onError(new Error('request aborted'))
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('aborted', onAborted)
  })
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
  return root !== null && typeof root === 'object' && Object.prototype.hasOwnProperty.call(root, '__proto__')
}
