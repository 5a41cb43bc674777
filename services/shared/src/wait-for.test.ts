import t from 'tap'
import { createLogger } from './log.js'
import { Readiness, WaitAbortedError, waitFor } from './wait-for.js'

const capture = () => {
  const lines: any[] = []
  return { lines, log: createLogger('debug', {}, (l) => lines.push(JSON.parse(l))) }
}

t.test('retries until the dependency answers, marking it not ready meanwhile', async (t) => {
  const { lines, log } = capture()
  const readiness = new Readiness(['registry', 'kafka'])
  const seen: string[] = []
  let calls = 0
  const value = await waitFor(
    'registry',
    async () => {
      seen.push(readiness.snapshot().registry!)
      if (++calls < 3) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })
      return 42
    },
    log,
    { initialMs: 1, maxMs: 2, readiness },
  )
  t.equal(value, 42)
  t.equal(calls, 3)
  t.same(seen, ['starting', 'unavailable: ECONNREFUSED', 'unavailable: ECONNREFUSED'])
  t.same(readiness.snapshot(), { registry: 'ok', kafka: 'starting' })
  t.notOk(readiness.ready)
  t.same(readiness.missing(), ['kafka'])
  t.match(lines[0], {
    level: 'warn',
    msg: 'waiting for registry',
    dependency: 'registry',
    attempt: 1,
    err: { code: 'ECONNREFUSED' },
  })
  t.match(lines.at(-1), { level: 'info', msg: 'registry is available', attempts: 3 })
  readiness.set('kafka', 'ok')
  t.ok(readiness.ready)
})

t.test('does not wait out programmer errors or errors marked permanent', async (t) => {
  const { log } = capture()
  let calls = 0
  await t.rejects(
    waitFor(
      'x',
      async () => {
        calls++
        throw new TypeError('bug')
      },
      log,
      { initialMs: 1 },
    ),
    TypeError,
  )
  await t.rejects(
    waitFor(
      'x',
      async () => {
        calls++
        throw Object.assign(new Error('bad schema'), { retriable: false })
      },
      log,
      { initialMs: 1 },
    ),
    /bad schema/,
  )
  await t.rejects(
    waitFor(
      'x',
      async () => {
        calls++
        throw new Error('SQL')
      },
      log,
      { initialMs: 1, retryIf: () => false },
    ),
    /SQL/,
  )
  t.equal(calls, 3, 'one attempt each')
})

t.test('an abort ends the wait with WaitAbortedError', async (t) => {
  const { log } = capture()
  const ac = new AbortController()
  let calls = 0
  const p = waitFor(
    'clickhouse',
    async () => {
      calls++
      throw new Error('down')
    },
    log,
    { initialMs: 60_000, maxMs: 60_000, signal: ac.signal },
  )
  // The first failure sleeps 30-60 s; the abort must cut that short.
  setImmediate(() => ac.abort())
  const err = await p.catch((e) => e)
  t.type(err, WaitAbortedError)
  t.equal(err.dependency, 'clickhouse')
  t.equal(calls, 1)
})
