import t from 'tap'
import {
  breakdownRows,
  bucketStart,
  OTHER,
  toTrend,
  traitCountsSql,
  trendCsv,
  trendSql,
  type TrendSpec,
} from './trends-queries.js'

const spec = (over: Partial<TrendSpec> = {}): TrendSpec => ({
  from: new Date('2024-05-13T00:00:00Z'),
  to: new Date('2024-05-16T00:00:00Z'),
  interval: 'day',
  filters: [],
  ...over,
})

t.test('buckets start on the UTC hour, day and Monday', async (t) => {
  const ms = Date.parse('2024-05-15T13:45:10Z') // a Wednesday
  t.equal(new Date(bucketStart(ms, 'hour') * 1000).toISOString(), '2024-05-15T13:00:00.000Z')
  t.equal(new Date(bucketStart(ms, 'day') * 1000).toISOString(), '2024-05-15T00:00:00.000Z')
  t.equal(new Date(bucketStart(ms, 'week') * 1000).toISOString(), '2024-05-13T00:00:00.000Z')
})

t.test('every value is bound, never spliced', async (t) => {
  const q = trendSql(
    'db1',
    "acc'1",
    spec({ event: "a'b", breakdown: "k'", filters: [{ key: 'plan', value: "x' OR 1=1" }] }),
  )
  t.match(q, /account_id = 'acc\\'1'/)
  t.match(q, /event = 'a\\'b'/)
  t.match(q, /arrayFirst\(p -> .* = 'k\\'', /, 'the breakdown key (U26)')
  t.match(q, /= 'x\\' OR 1=1'/)
  t.match(q, /LIMIT 10/)
  t.throws(() => trendSql('db; DROP', 'a', spec()), { code: 'SQL_BIND_ERROR' })
  const byTrait = trendSql('db1', "acc'1", spec({ breakdownTrait: "t'", filters: [] }))
  t.match(byTrait, /trait_key = 't\\''/, 'the trait key (U27)')
  t.match(byTrait, /WHERE account_id = 'acc\\'1' AND trait_key/, "only the account's traits")
})

t.test(
  'the trait breakdown by hashes reads the counted days from person_counts_daily, the rest from the events (U33)',
  async (t) => {
    const DAY = 86_400_000
    const s = spec({
      from: new Date('2024-05-13T05:00:00Z'),
      to: new Date('2024-05-16T07:30:00Z'),
      environment: 'live',
    })
    const day = (d: number) => Date.parse('2024-05-13T00:00:00Z') + d * DAY
    const q = traitCountsSql('db1', "acc'1", s, "t'", { days: [{ fromMs: day(1), toMs: day(2) }] })
    t.match(
      q,
      /FROM db1\.person_counts_daily FINAL\s+WHERE account_id = 'acc\\'1' AND \(\(day >= toDateTime\('2024-05-14 00:00:00', 'UTC'\) AND day < toDateTime\('2024-05-15 00:00:00', 'UTC'\)\)\) AND environment = 'live'/,
    )
    // The events before the day, and after it to the period's last second, at the exact bounds.
    t.match(
      q,
      "((timestamp >= toDateTime('2024-05-13 05:00:00', 'UTC') AND timestamp < toDateTime('2024-05-14 00:00:00', 'UTC')) OR (timestamp >= toDateTime('2024-05-15 00:00:00', 'UTC') AND timestamp < toDateTime('2024-05-16 07:30:01', 'UTC'))) AND timestamp_ms >= 1715576400000 AND timestamp_ms < 1715844600000 AND environment = 'live'",
    )
    t.match(q, /trait_key = 't\\''/)
    t.match(
      q,
      /cityHash64\(toString\(environment\), user_id\) AS person, sipHash64\(user_id\) AS person_check/,
      'two hashes of the id (U33)',
    )
    t.notMatch(traitCountsSql('db1', 'a', s, 'plan'), /person_counts_daily/, 'no days: the events alone')
  },
)

t.test('rows become series over every bucket, other last, and CSV', async (t) => {
  const trend = toTrend(
    [
      { t: bucketStart(Date.parse('2024-05-13T05:00:00Z'), 'day'), value: OTHER, events: '9' },
      { t: bucketStart(Date.parse('2024-05-13T05:00:00Z'), 'day'), value: 'pro', events: '2' },
      { t: bucketStart(Date.parse('2024-05-15T05:00:00Z'), 'day'), value: '=free', events: '3' },
    ],
    spec({ breakdown: 'plan' }),
  )
  t.same(trend.buckets, ['2024-05-13T00:00:00.000Z', '2024-05-14T00:00:00.000Z', '2024-05-15T00:00:00.000Z'])
  t.same(trend.series, [
    { value: '=free', counts: [0, 0, 3] },
    { value: 'pro', counts: [2, 0, 0] },
    { value: OTHER, counts: [9, 0, 0] },
  ])
  t.equal(
    trendCsv(trend),
    "bucket,'=free,pro,$other\r\n2024-05-13T00:00:00.000Z,0,2,9\r\n2024-05-14T00:00:00.000Z,0,0,0\r\n2024-05-15T00:00:00.000Z,3,0,0\r\n",
  )
})

t.test('a breakdown reads the events once: top values and the totals of one GROUP BY', async (t) => {
  const q = trendSql('db1', 'acc', spec({ breakdown: 'plan' }))
  t.equal(q.match(/\bFROM\b/g)?.length, 1, 'one scan of the events')
  t.match(q, /GROUP BY value WITH TOTALS/)
  t.match(q, /LIMIT 10$/)
})

t.test('other is the totals less the top values, per bucket', async (t) => {
  const rows = breakdownRows(
    [
      {
        value: 'pro',
        events: '5',
        m: [
          ['100', '200'],
          ['3', '2'],
        ],
      },
      { value: 'free', events: '1', m: [['200'], ['1']] },
    ],
    {
      value: '',
      events: '10',
      m: [
        ['100', '200', '300'],
        ['3', '5', '2'],
      ],
    },
  )
  t.same(rows, [
    { t: '100', value: 'pro', events: '3' },
    { t: '200', value: 'pro', events: '2' },
    { t: '200', value: 'free', events: '1' },
    { t: 200, value: OTHER, events: 2 },
    { t: 300, value: OTHER, events: 2 },
  ])
  t.same(breakdownRows([], undefined), [], 'no rows, no totals')
})
