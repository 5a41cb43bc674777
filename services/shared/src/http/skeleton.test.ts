// The shared HTTP skeleton (H62) as pure answers: the one health shape, the error body and its
// Retry-After rule, the metrics answer, and which requests the service routes take.
import t from 'tap'
import {
  checksOf,
  errorAnswer,
  failingChecks,
  liveAnswer,
  metricsAnswer,
  notFoundAnswer,
  readinessAnswer,
  reportOf,
  serviceAnswer,
} from './index.js'

t.test('health: one shape, 503 with Retry-After while a check fails', async (t) => {
  t.same(liveAnswer(), { status: 200, body: { status: 'ok' } })
  const report = reportOf({ kafka: 'ok', registry: 'unavailable: ECONNREFUSED', accounts: 'starting' })
  t.same(report.checks, {
    kafka: { ok: true, detail: 'ok' },
    registry: { ok: false, detail: 'unavailable: ECONNREFUSED' },
    accounts: { ok: false, detail: 'starting' },
  })
  t.same(failingChecks(report.checks), ['registry', 'accounts'])
  t.same(readinessAnswer(report), {
    status: 503,
    headers: { 'Retry-After': '2' },
    body: { status: 'unavailable', checks: report.checks },
  })
  const ready = reportOf({ kafka: 'ok' })
  t.same(readinessAnswer(ready), { status: 200, body: { status: 'ok', checks: checksOf({ kafka: 'ok' }) } })
})

t.test('errors: shape 1, details only when there are some, every 503 says when to come back', async (t) => {
  t.same(errorAnswer({ code: 'NOT_FOUND', status: 404, message: 'm' }), {
    status: 404,
    headers: {},
    body: { success: false, error: { code: 'NOT_FOUND', message: 'm' } },
  })
  t.same(notFoundAnswer('No such endpoint').body, {
    success: false,
    error: { code: 'NOT_FOUND', message: 'No such endpoint' },
  })
  t.same(errorAnswer({ code: 'SERVICE_UNAVAILABLE', status: 503, message: 'm' }).headers, { 'Retry-After': '5' })
  const named = { code: 'RATE_LIMIT_EXCEEDED', status: 429, message: 'm', details: { retry_after_seconds: 7 } }
  t.same(errorAnswer(named).headers, { 'Retry-After': '7' }, 'a 429 naming its wait')
  t.same(errorAnswer(named).body, {
    success: false,
    error: { code: 'RATE_LIMIT_EXCEEDED', message: 'm', details: { retry_after_seconds: 7 } },
  })
  t.same(
    errorAnswer({ code: 'X', status: 503, message: 'm', headers: { 'Retry-After': '1', Connection: 'close' } }).headers,
    { 'Retry-After': '1', Connection: 'close' },
    "the error's own header wins",
  )
  t.same(errorAnswer({ code: 'X', status: 400, message: 'm', details: { retry_after_seconds: 3 } }).headers, {})
})

t.test('metrics: Prometheus text, or 503 with Retry-After when the registry fails', async (t) => {
  const ok = await metricsAnswer({ contentType: 'text/plain; version=0.0.4', render: async () => 'a 1\n' })
  t.same(ok, { status: 200, type: 'text/plain; version=0.0.4', body: 'a 1\n' })
  const failed = await metricsAnswer({
    contentType: 'text/plain',
    render: async () => {
      throw new Error('collect failed')
    },
  })
  t.match(failed, { status: 503, headers: { 'Retry-After': '5' }, body: { error: { code: 'SERVICE_UNAVAILABLE' } } })
})

t.test('the service routes: GET or HEAD of their paths, each only when the service gives what it needs', async (t) => {
  const metrics = { contentType: 'text/plain', render: async () => 'm 1\n' }
  let after = 0
  const d = {
    readiness: () => reportOf({ kafka: 'ok' }),
    metrics,
    afterReadiness: async () => {
      after++
    },
  }
  t.match(await serviceAnswer('GET', '/health/live', {}), { status: 200 }, 'liveness needs nothing')
  t.equal(await serviceAnswer('GET', '/health', {}), undefined, 'no readiness given')
  t.equal(await serviceAnswer('GET', '/metrics', {}), undefined, 'no metrics given')
  t.match(await serviceAnswer('GET', '/health', d), { status: 200, body: { status: 'ok' } })
  t.match(await serviceAnswer('HEAD', '/health/ready', d), { status: 200 })
  t.equal(after, 2, 'after each readiness answer')
  t.match(await serviceAnswer('GET', '/metrics', d), { status: 200, body: 'm 1\n' })
  t.equal(await serviceAnswer('POST', '/health', d), undefined)
  t.equal(await serviceAnswer('GET', '/healthz', d), undefined)
  const broken = {
    readiness: async () => {
      throw new Error('ping failed')
    },
  }
  t.match(await serviceAnswer('GET', '/health', broken), {
    status: 503,
    headers: { 'Retry-After': '2' },
    body: { status: 'unavailable', checks: { readiness: { ok: false, detail: /ping failed/ } } },
  })
})
