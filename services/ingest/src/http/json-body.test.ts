// Every JSON type and coding must answer every body alike (H7): plain application/json as the
// `+json` types and the compressed bodies do, with the same parsed value or the same error.
import t from 'tap'
import Koa from 'koa'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { jsonBody, parseJson } from './json-body.js'
import type { ServiceError } from '../errors.js'

const LIMIT = 64

async function server(t: any) {
  const app = new Koa()
  app.use(async (ctx, next) => {
    try {
      await next()
    } catch (err) {
      const e = err as ServiceError
      ctx.status = e.status ?? 500
      ctx.body = { code: e.code ?? 'INTERNAL', message: e.message }
    }
  })
  app.use(jsonBody({ kind: 'single', limit: LIMIT, maxInflateRatio: 100, readTimeoutMs: 10_000 }) as any)
  app.use((ctx) => {
    ctx.body = { parsed: (ctx.request as any).body, raw: (ctx.request as any).rawBody }
  })
  const s = app.listen(0, '127.0.0.1')
  await new Promise((r) => s.once('listening', r))
  t.teardown(() => s.close())
  return (s.address() as AddressInfo).port
}

function post(
  port: number,
  body: Buffer | string,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const buf = typeof body === 'string' ? Buffer.from(body) : body
    const h: Record<string, string | number> = { ...headers }
    if (!chunked) h['content-length'] = buf.length
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: h }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }))
    })
    req.on('error', reject)
    if (chunked) {
      // Two writes without a length: the limit is found while reading.
      req.write(buf.subarray(0, buf.length >> 1))
      req.end(buf.subarray(buf.length >> 1))
    } else {
      req.end(buf)
    }
  })
}

const bodies: Array<[string, string | Buffer]> = [
  ['an object', '{"event":"a","n":1.5,"u":{"id":"x"}}'],
  ['an array', '[1,2,{"a":null}]'],
  ['a number', '42'],
  ['a string', '"text"'],
  ['null', 'null'],
  ['empty', ''],
  ['whitespace', '   \n'],
  ['invalid', '{"a":'],
  ['a top-level __proto__ key', '{"__proto__":{"x":1}}'],
  ['an escaped __proto__ key', '{"\\u005f_proto__":{"x":1}}'],
  ['__proto__ only as a value', '{"a":"__proto__"}'],
  ['a BOM', '\ufeff{"a":1}'],
  ['non-ASCII', '{"name":"Zoë ✓ 😀"}'],
  ['a lone surrogate escape', '{"s":"\\ud800"}'],
  ['exactly the limit', `{"a":"${'x'.repeat(LIMIT - 8)}"}`],
  ['over the limit', `{"a":"${'x'.repeat(LIMIT)}"}`],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
]

t.test('application/json and +json types answer every body alike', async (t) => {
  const port = await server(t)
  for (const chunked of [false, true]) {
    for (const [name, body] of bodies) {
      const fast = await post(port, body, { 'content-type': 'application/json' }, chunked)
      const slow = await post(port, body, { 'content-type': 'application/x-test+json' }, chunked)
      t.same(fast, slow, `${name}${chunked ? ' (chunked)' : ''}: ${JSON.stringify(fast)}`)
    }
  }
  const over = await post(port, `{"a":"${'x'.repeat(LIMIT)}"}`, { 'content-type': 'application/json' }, true)
  t.match(over, { status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } }, 'over the limit while reading: 413')
  const proto = await post(port, '{"__proto__":{"x":1}}', { 'content-type': 'application/json; charset=utf-8' })
  t.match(
    proto,
    { status: 400, body: { code: 'INVALID_JSON' } },
    '__proto__: 400 (charset=utf-8 takes the one-pass reader too)',
  )
})

t.test('compressed bodies are inflated; other types and codings are refused', async (t) => {
  const port = await server(t)
  const gz = await post(port, gzipSync('{"a":1}'), { 'content-type': 'application/json', 'content-encoding': 'GZIP' })
  t.same(gz, { status: 200, body: { parsed: { a: 1 }, raw: '{"a":1}' } })
  t.match(await post(port, '{"a":1}', { 'content-type': 'application/json', 'content-encoding': 'compress' }), {
    status: 415,
  })
  t.match(await post(port, '{"a":1}', { 'content-type': 'text/plain' }), { status: 415 })
  t.match(
    await post(port, '{"a":1}', { 'content-type': 'application/json', 'content-encoding': '' }),
    { status: 200 },
    'an empty coding is none, as before',
  )
})

t.test(
  'parseJson refuses __proto__ at the top level; deeper ones are left to validation, per item (H31)',
  async (t) => {
    t.same(parseJson('{"a":[{"b":1}]}'), { a: [{ b: 1 }] })
    t.throws(() => parseJson('{"sent_at":"x","__proto__":{"events":[]}}'), { code: 'INVALID_JSON' })
    t.throws(() => parseJson('{"\\u005f_proto__":1}'), { code: 'INVALID_JSON' }, 'an escaped spelling')
    t.same(parseJson('{"note":"\\"__proto__\\": is text"}'), { note: '"__proto__": is text' })
    const nested = parseJson('{"events":[{"properties":{"__proto__":{"polluted":1}}}]}') as any
    const props = nested.events[0].properties
    t.ok(Object.hasOwn(props, '__proto__'), 'an own key of the item, for validation to name')
    t.equal(Object.getPrototypeOf(props), Object.prototype, 'no prototype was set')
    t.equal(({} as any).polluted, undefined, 'nothing reached Object.prototype')
  },
)
