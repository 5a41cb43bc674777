// H2 step 3, H7: content type, size after decompression, then JSON.
import type Koa from 'koa'
import bodyParser from 'koa-bodyparser'
import { errors } from '../errors.js'
import type { Ctx } from './context.js'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

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
    if (!JSON_TYPE.test(ctx.get('content-type'))) throw errors.unsupportedMediaType()
    const declared = Number(ctx.get('content-length'))
    const encoded = (ctx.get('content-encoding') || 'identity').trim().toLowerCase()
    if (encoded === 'identity' && declared > limit) throw errors.payloadTooLarge(limit)
    if (!['identity', 'gzip', 'deflate', 'br'].includes(encoded)) throw errors.unsupportedMediaType()
    // Content codings are case-insensitive (RFC 9110 8.4.1) but the inflater matches them
    // exactly: hand it the normalized name, so `Content-Encoding: GZIP` is not a 415.
    ctx.req.headers['content-encoding'] = encoded
    await parse(ctx as any, async () => undefined)
    if ((ctx.request as any).rawBody === '' || (ctx.request as any).rawBody === undefined) {
      throw errors.invalidJson('the body is empty')
    }
    await next()
  }
}
