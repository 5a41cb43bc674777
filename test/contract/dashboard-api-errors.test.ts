// The dashboard API's error answers that only a failing dependency or a bug can cause, on the
// assembled app in this process (test/support/in-process-dashboard.ts): a read past the query size
// bound (400 QUERY_TOO_LARGE, H23), a full password-hashing line (HASH_GATE_BUSY, answered as 503
// with Retry-After), a query builder refusing a value (SQL_BIND_ERROR) and any other programmer error
// (500 INTERNAL_ERROR without internals, H81).
import t, { type Test } from 'tap'
import { HashGate } from '../../services/dashboard/src/auth/index.js'
import { bind } from '../../schemas/clickhouse/sql.js'
import type { ApiResponse } from '../support/dashboard-client.js'
import { startInProcessDashboard } from '../support/in-process-dashboard.js'

/** The error a builder's bind throws for an identifier that is not one. */
function bindError(): unknown {
  try {
    bind('SELECT count() FROM {db:Identifier}.events', { db: 'analytics; DROP TABLE events' })
  } catch (err) {
    return err
  }
  throw new Error('bind took an identifier it must refuse')
}

/** 500 in shape 1 with the generic message: no details, no cause, no Retry-After (docs/errors.md). */
function expectInternal(t: Test, r: ApiResponse, leak: RegExp) {
  t.match(r, { status: 500, body: { success: false, error: { code: 'INTERNAL_ERROR' } } })
  t.equal(r.body.error.details, undefined, 'a 500 never carries details')
  t.notMatch(JSON.stringify(r.body), leak, 'nor its cause')
  t.equal(r.headers.get('retry-after'), null, 'no Retry-After: a retry would fail the same way')
}

t.test('400 QUERY_TOO_LARGE for a read past the size bound, without Retry-After or the server text', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  await c.signUp()
  d.data.failure = Object.assign(new Error('Code: 307. DB::Exception: Limit for bytes to read exceeded'), {
    code: '307',
  })
  const r = await c.get('/api/events')
  t.match(r, { status: 400, body: { success: false, error: { code: 'QUERY_TOO_LARGE', message: /narrow/ } } })
  t.equal(r.headers.get('retry-after'), null, 'the same query would fail again: no Retry-After')
  t.notMatch(JSON.stringify(r.body), /DB::Exception|307/, 'no internals in the answer')
  d.data.failure = Object.assign(new Error('Code: 159. DB::Exception: Timeout exceeded'), { code: '159' })
  const slow = await c.get('/api/events')
  t.match(slow, { status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE' } } }, 'a time bound may pass later')
  t.ok(Number(slow.headers.get('retry-after')) > 0)
})

t.test('HASH_GATE_BUSY: a full hashing line is 503 SERVICE_UNAVAILABLE with Retry-After: 1', async (t) => {
  const gate = new HashGate({ running: 1, waiting: 0 })
  const d = await startInProcessDashboard(t, {}, { hashGate: gate })
  const { email, password } = await d.client().signUp()
  let release = () => {}
  const held = gate.run(() => new Promise<void>((resolve) => (release = resolve)))
  const c = d.client()
  const r = await c.post('/api/signin', { email, password })
  t.match(r, { status: 503, body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: /sign-ins/ } } })
  t.equal(r.headers.get('retry-after'), '1')
  t.notMatch(JSON.stringify(r.body), /HASH_GATE_BUSY/, "the gate's own code stays inside")
  t.equal((await c.get('/api/me')).status, 401, 'no session was started')
  release()
  await held
  t.equal((await c.post('/api/signin', { email, password })).status, 200, 'a free line signs in')
})

t.test('SQL_BIND_ERROR: a query builder refusing a value is 500 INTERNAL_ERROR, not a 503 to retry', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  await c.signUp()
  d.data.failure = bindError()
  t.match(d.data.failure, { code: 'SQL_BIND_ERROR' }, 'the error the builders throw')
  expectInternal(t, await c.get('/api/events'), /SQL_BIND_ERROR|DROP|Identifier/)
  d.data.failure = undefined
  t.equal((await c.get('/api/events')).status, 200)
})

t.test('INTERNAL_ERROR: any other programmer error is 500 without internals', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  await c.signUp()
  d.data.failure = new TypeError("Cannot read properties of undefined (reading 'rows')")
  expectInternal(t, await c.get('/api/top-events'), /rows|TypeError|undefined/)
})
