import t from 'tap'
import { classify } from '../src/transport.js'

const h =
  (m: Record<string, string> = {}) =>
  (n: string) =>
    m[n] ?? null
const now = 1_700_000_000_000
const err = (code: string, details?: unknown) => ({ success: false, error: { code, message: code, details } })

t.test('200 with per-item results', async (t) => {
  const results = [
    { index: 0, success: true, event_id: 'e' },
    { index: 1, success: false, error: { code: 'VALIDATION_ERROR', message: 'm' } },
  ]
  t.same(classify({ status: 200, header: h(), body: { success: true, data: { results } } }, now), {
    kind: 'ok',
    results,
  })
})

t.test('401, 400, 413, 415 fail for good with the API code', async (t) => {
  for (const [status, code] of [
    [401, 'INVALID_API_KEY'],
    [400, 'VALIDATION_ERROR'],
    [413, 'PAYLOAD_TOO_LARGE'],
    [415, 'UNSUPPORTED_MEDIA_TYPE'],
  ] as const) {
    const o = classify({ status, header: h(), body: err(code) }, now)
    t.equal(o.kind, 'fail', code)
    if (o.kind === 'fail') {
      t.equal(o.error.code, code)
      t.equal(o.error.status, status)
      t.equal(o.error.retriable, false)
    }
  }
  const results = [{ index: 0, success: false, error: { code: 'VALIDATION_ERROR', message: 'x' } }]
  const o = classify({ status: 400, header: h(), body: err('VALIDATION_ERROR', { results }) }, now)
  t.same(o.kind === 'fail' && o.results, results, 'a rejected batch carries per-item results')
})

t.test('429 and 503 are retried after the server delay; a monthly limit is not', async (t) => {
  const o = classify({ status: 429, header: h({ 'retry-after': '4' }), body: err('RATE_LIMIT_EXCEEDED') }, now)
  t.match(o, { kind: 'retry', serverDelayMs: 4000 })
  const r = classify(
    { status: 429, header: h({ 'x-ratelimit-reset': String(now / 1000 + 9) }), body: err('EVENT_RATE_LIMIT_EXCEEDED') },
    now,
  )
  t.match(r, { kind: 'retry', serverDelayMs: 9000 })
  t.match(classify({ status: 503, header: h({ 'retry-after': '2' }), body: err('SERVICE_UNAVAILABLE') }, now), {
    kind: 'retry',
    serverDelayMs: 2000,
  })
  t.match(classify({ status: 502, header: h(), body: 'Bad gateway' }, now), { kind: 'retry', serverDelayMs: undefined })
  t.match(
    classify({ status: 429, header: h({ 'retry-after': '86400' }), body: err('MONTHLY_EVENT_LIMIT_EXCEEDED') }, now),
    { kind: 'fail' },
  )
  t.match(
    classify(
      { status: 429, header: h({ 'retry-after': '86400' }), body: err('MONTHLY_TEST_EVENT_LIMIT_EXCEEDED') },
      now,
    ),
    { kind: 'fail' },
    'the test-event cap too (H33)',
  )
})
