import t from 'tap'
import { funnelClock, funnelSql, toFunnel, type FunnelSpec } from './funnels-queries.js'
import { funnelSpecOf } from './funnel-params.js'

const spec = (over: Partial<FunnelSpec> = {}): FunnelSpec => ({
  steps: [{ event: 'view' }, { event: 'signup' }],
  windowMs: 86_400_000,
  from: new Date('2024-05-13T00:00:00Z'),
  to: new Date('2024-05-20T00:00:00Z'),
  ...over,
})

t.test('every value is bound; step 1 starts in the period, later steps may end a window after it', async (t) => {
  const q = funnelSql(
    'db1',
    "acc'1",
    spec({ steps: [{ event: "a'b", filter: { key: "k'", value: "x' OR 1=1" } }, { event: 'c' }], environment: 'live' }),
  )
  t.match(q, /account_id = 'acc\\'1'/)
  t.match(q, /event = 'a\\'b' AND if\(visitParamExtractString\(properties, 'k\\''\)/)
  t.match(q, /= 'x\\' OR 1=1'/)
  t.match(q, /event IN \('a\\'b', 'c'\)/)
  t.match(q, /environment = 'live'/)
  t.match(q, /\(event = 'a\\'b' AND .* AND timestamp_ms < 1716163200000\) AS step1, \(event = 'c'\) AS step2/)
  t.match(q, /windowFunnel\(172800001\)\(toUInt32\(tick \* 2 \+ step\), step = 0, step = 1\)/, 'the window in slots')
  t.match(
    q,
    /intDiv\(timestamp_ms - \d+, 1\) AS tick, arrayJoin\(arrayFilter\(s -> s < 2, \[if\(step1, 0, 2\), if\(step2, 1, 2\)\]\)\) AS step/,
  )
  t.match(q, /AND \(step1 OR step2\)\) AS e/, 'with a filter, only the rows of a step are joined')
  t.notMatch(funnelSql('db1', 'a', spec()), /step1 OR/, 'without, the event names select them (the sort key)')
  t.match(q, /timestamp < toDateTime\('2024-05-21 00:00:00', 'UTC'\)/, 'rows up to one window after the period')
  t.match(q, /countIf\(level >= 1\) AS s1, countIf\(level >= 2\) AS s2\n/)
  t.throws(() => funnelSql('db; DROP', 'a', spec()), { code: 'SQL_BIND_ERROR' })
})

t.test('the clock fits 18.16 (U31): a tick per step under 2^31, milliseconds while they fit', async (t) => {
  const day = 86_400_000
  const from = new Date('2024-05-01T00:00:00.250Z')
  const steps = (n: number) => Array.from({ length: n }, (_, i) => ({ event: `e${i}` }))
  const at = (days: number, windowMs: number, n = 2) =>
    funnelClock(spec({ from, to: new Date(from.getTime() + days * day), windowMs, steps: steps(n) }))
  t.same(at(7, 1 * day), { baseMs: Date.parse('2024-05-01T00:00:00Z'), tickMs: 1, window: day })
  t.same(at(7, 7 * day, 2), { baseMs: Date.parse('2024-05-01T00:00:00Z'), tickMs: 2, window: (7 * day) / 2 })
  t.same(at(366, 30 * day, 5).tickMs, 80)
  for (const [days, window, n] of [
    [30, 30 * day, 5],
    [7, 7 * day, 3],
    [1, day, 5],
  ] as const) {
    const c = at(days, window, n)
    const lastTick = Math.floor((days * day + window + 1250) / c.tickMs)
    t.ok(lastTick * n + n - 1 < 2 ** 31, `the last slot read fits an Int32 (${days} d, ${n} steps)`)
    t.ok(c.tickMs === 1 || Math.floor((days * day + window + 1250) / (c.tickMs - 1)) * n >= 2 ** 31, 'the fewest')
  }
})

t.test('conversion and drop-off from the counts, none without a step 1', async (t) => {
  const three = spec({ steps: [{ event: 'a' }, { event: 'b' }, { event: 'c' }] })
  t.same(
    toFunnel({ s1: '8', s2: '2', s3: 1 }, three).steps.map((s) => [s.persons, s.conversion, s.dropoff, s.dropoff_rate]),
    [
      [8, 1, 0, 0],
      [2, 0.25, 6, 0.75],
      [1, 0.125, 1, 0.5],
    ],
  )
  t.same(
    toFunnel(undefined, three).steps.map((s) => [s.persons, s.conversion, s.dropoff_rate]),
    [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ],
  )
})

t.test('parameters: 2 to 5 steps in order, a filter per step, the window', async (t) => {
  const of = (params: Record<string, string>) =>
    funnelSpecOf(
      {
        param: (n) => params[n],
        window: params.window,
        period: params.period,
        custom: () => ({ from: new Date(0), to: new Date(1) }),
      },
      Date.parse('2024-05-20T00:00:00Z'),
    )
  const f = of({ step1: 'view', where1: 'path=/a=b', step2: 'signup', window: '1h' })
  t.same(f.steps, [{ event: 'view', filter: { key: 'path', value: '/a=b' } }, { event: 'signup' }])
  t.equal(f.windowMs, 3_600_000)
  t.equal(f.from.toISOString(), '2024-05-13T00:00:00.000Z', 'the period is 7 d by default')
  t.equal(of({ step1: 'a', step2: 'b' }).windowMs, 7 * 86_400_000, 'the window is 7 d by default')
  t.throws(() => of({ step1: 'a' }), { code: 'VALIDATION_ERROR' }, 'one step is not a funnel')
  t.throws(() => of({ step1: 'a', step3: 'b' }), { code: 'VALIDATION_ERROR' }, 'no gap')
  t.throws(() => of({ step1: 'a', step2: 'b', where3: 'k=v' }), { code: 'VALIDATION_ERROR' })
  t.throws(() => of({ step1: 'a', step2: 'b', where2: 'novalue' }), { code: 'VALIDATION_ERROR' })
  t.throws(() => of({ step1: 'a', step2: 'b', window: '2d' }), { code: 'VALIDATION_ERROR' })
  t.throws(() => of({ step1: 'a', step2: 'b', period: '1y' }), { code: 'VALIDATION_ERROR' })
  t.throws(() => of({ step1: 'a', step2: 'a' }), { code: 'VALIDATION_ERROR' }, 'two equal steps in a row')
  t.same(of({ step1: 'a', where1: 'k=1', step2: 'a', where2: 'k=2' }).steps.length, 2, 'the same event, other filters')
  t.same(of({ step1: 'a', step2: 'b', step3: 'a' }).steps.length, 3, 'an event again later')
  const five = of({ step1: 'a', step2: 'b', step3: 'c', step4: 'd', step5: 'e', step6: 'f' })
  t.equal(five.steps.length, 5, 'step6 is not read')
})
