import t from 'tap'
import {
  classifyAnswer,
  resumedAfter,
  summarise,
  verdict,
  renderMarkdown,
  renderText,
  type Outcome,
  type FaultWindow,
  type Reconciliation,
} from './report.js'

const ok = (sentAt: number, doneAt: number, ...ids: string[]): Outcome => ({
  sentAt,
  doneAt,
  status: 200,
  events: ids.map((id, i) => ({ messageId: `m-${id}-${i}`, eventId: id })),
})
const failed = (sentAt: number, doneAt: number, o: Partial<Outcome>): Outcome => ({
  sentAt,
  doneAt,
  events: [{ messageId: `m${sentAt}` }],
  ...o,
})
const win = (name: string, startedAt: number, endedAt: number): FaultWindow => ({
  name,
  title: name,
  startedAt,
  endedAt,
  notes: [],
  problems: [],
})
const rec = (
  topic: string[],
  ch: string[],
  dups: string[] = [],
  extra: Partial<Reconciliation> = {},
): Reconciliation => ({
  topic: new Map(topic.map((id) => [id, 1])),
  clickhouse: new Set(ch),
  duplicated: new Map(dups.map((id) => [id, 2])),
  topicComplete: true,
  projectionCaughtUp: true,
  ...extra,
})

t.test('only 503 with a Retry-After in seconds may be a 5xx', async (t) => {
  t.equal(classifyAnswer(200, null), undefined)
  t.equal(classifyAnswer(429, '3'), undefined)
  t.equal(classifyAnswer(503, '1'), undefined)
  t.match(classifyAnswer(503, null), /without a Retry-After/)
  t.match(classifyAnswer(503, 'soon'), /without a Retry-After/)
  t.match(classifyAnswer(500, '1'), /^500/)
  t.match(classifyAnswer(502, null), /^502/)
})

t.test('each lost id is attributed to the window in which it was acked', async (t) => {
  const windows = [win('baseline', 0, 100), win('kafka-stall', 100, 200)]
  const outcomes = [ok(10, 20, 'a'), ok(90, 150, 'b'), ok(120, 130, 'c'), ok(160, 170, 'd', 'e')]
  const rows = summarise(windows, outcomes, rec(['a', 'b', 'd', 'e'], ['a', 'b', 'd'], ['e']))
  t.equal(rows[0].acked, 1)
  t.equal(rows[0].lostTopic, 0)
  t.equal(rows[1].acked, 4, 'b was sent in the baseline but acked during the fault')
  t.equal(rows[1].lostTopic, 1, 'c is not on the topic')
  t.equal(rows[1].lostClickhouse, 2, 'c and e are not in ClickHouse')
  t.equal(rows[1].duplicated, 1)
  t.same(rows[1].lostExamples.sort(), ['c', 'e'])
})

t.test('status classes are counted per window', async (t) => {
  const outcomes = [
    failed(110, 111, { status: 503, retryAfter: '1' }),
    failed(112, 113, { status: 500, bad: '500' }),
    failed(114, 115, { status: 429 }),
    failed(116, 117, { error: 'connection' }),
    failed(118, 119, { error: 'timeout' }),
  ]
  const [r] = summarise([win('f', 100, 200)], outcomes, rec([], []))
  t.match(r, { requests: 5, acked: 0, status503: 1, non2xx: 2, connectionErrors: 1, timeouts: 1, badAnswers: 1 })
})

t.test('200s resume after the last disrupted request', async (t) => {
  t.equal(resumedAfter([ok(1000, 1010, 'a'), ok(1100, 1110, 'b')], 1000, 5000), 0, 'nothing disrupted')
  const outcomes = [
    ok(900, 950, 'a'),
    failed(1000, 1001, { error: 'connection' }),
    failed(2000, 2001, { status: 503, retryAfter: '1' }),
    ok(2100, 3000, 'b'),
    ok(2200, 2300, 'c'),
  ]
  t.equal(resumedAfter(outcomes, 1000, 9000), 1.3, 'the first 200 sent after the last failure, by its answer time')
  const stalled = [ok(1000, 41_000, 'a'), ok(41_100, 41_200, 'b')]
  t.equal(resumedAfter(stalled, 1000, 60_000), 40.2, 'a request held 40 s counts as disrupted though it got a 200')
  t.equal(resumedAfter([failed(1000, 1001, { status: 503, retryAfter: '1' })], 1000, 9000), null, 'never')
  const spill = [ok(1000, 1010, 'a'), ok(8500, 15_000, 'b')]
  t.equal(resumedAfter(spill, 1000, 9000), 0, "a request still unanswered when the next fault begins is that fault's")
  const slow = [
    failed(1000, 1001, { status: 503, retryAfter: '1' }),
    failed(8000, 8001, { status: 503, retryAfter: '1' }),
    ok(9500, 9600, 'a'),
  ]
  t.equal(resumedAfter(slow, 1000, 9000), 8.6, 'a recovery slower than the window is measured to its end')
})

t.test('the verdict fails on any loss, duplicate, bad answer, exit or incomplete read', async (t) => {
  const windows = [win('baseline', 0, 100), win('f', 100, 200)]
  t.same(verdict(summarise(windows, [ok(10, 20, 'a')], rec(['a'], ['a'])), rec(['a'], ['a']), [ok(10, 20, 'a')]), {
    ok: true,
    failures: [],
  })
  const lost = rec(['a'], [])
  t.match(verdict(summarise(windows, [ok(10, 20, 'a')], lost), lost, [ok(10, 20, 'a')]).failures, [
    /baseline: 1 acknowledged events are not in ClickHouse/,
  ])
  const stray = rec(['a', 'z'], ['a', 'z'], ['z'])
  t.match(verdict(summarise(windows, [ok(10, 20, 'a')], stray), stray, [ok(10, 20, 'a')]).failures, [
    /1 unacknowledged events are duplicated/,
  ])
  const exit = [win('baseline', 0, 100), { ...win('f', 100, 200), problems: ['projector exited on its own'] }]
  t.match(verdict(summarise(exit, [], rec([], [])), rec([], []), []).failures, [/f: projector exited on its own/])
  const bad = [failed(110, 111, { status: 500, bad: '500 (only 503 ...)' })]
  t.notOk(verdict(summarise(windows, bad, rec([], [])), rec([], []), bad).ok)
  const refused = [failed(110, 111, { status: 401 }), ok(120, 130, 'a')]
  t.match(verdict(summarise(windows, refused, rec(['a'], ['a'])), rec(['a'], ['a']), refused).failures, [
    /f: 1 answers were 4xx/,
  ])
  const open = rec([], [], [], { topicComplete: false })
  t.match(verdict([], open, []).failures, [/could not be read to its end/])
})

t.test('the table renders one row per window and a total', async (t) => {
  const windows = [win('baseline', 0, 100), { ...win('kafka-stall', 100, 200), title: 'Kafka stalled 40 s' }]
  const outcomes = [ok(10, 20, 'a'), ok(120, 130, 'b')]
  const rows = summarise(windows, outcomes, rec(['a'], ['a']))
  const md = renderMarkdown(rows)
  t.match(md, /^\| fault \| acked \| 503s/)
  t.match(md, /\| Kafka stalled 40 s \| 1 \| 0 \| 0 \| 0 \| 0 \| 1 \| 1 \| 0 \| 0.0 \|/)
  t.match(md, /\| \*\*total\*\* \| \*\*2\*\* \|/)
  t.match(renderText(rows), /Kafka stalled 40 s\s+1/)
})
