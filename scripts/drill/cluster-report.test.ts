import t from 'tap'
import { judgeRateLimit, unavailability, type LimitAnswer } from './cluster-report.js'
import type { Outcome } from './report.js'

const AT = 1_795_328_790_000 // 30 s before the window ends at RESET
const RESET = '1795328820'
const accepted = (instance: number, remaining: number): LimitAnswer => ({
  instance,
  status: 200,
  at: AT,
  headers: {
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': RESET,
    'x-ratelimit-window': '60',
  },
})
const denied = (instance: number, o: Partial<LimitAnswer> = {}): LimitAnswer => ({
  instance,
  status: 429,
  at: AT,
  code: 'RATE_LIMIT_EXCEEDED',
  details: { limit: 100, window_seconds: 60, retry_after_seconds: 30, requests_remaining: 0 },
  headers: {
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': RESET,
    'x-ratelimit-window': '60',
    'retry-after': '30',
  },
  ...o,
})
/** 250 requests alternating between two instances that share one counter. */
const shared = (): LimitAnswer[] =>
  Array.from({ length: 250 }, (_, i) => (i < 100 ? accepted((i % 2) + 1, 99 - i) : denied((i % 2) + 1)))

t.test('one shared count: 100 accepted across both instances, 150 correct 429s', async (t) => {
  const v = judgeRateLimit(shared(), 100)
  t.same(v.problems, [])
  t.equal(v.accepted, 100)
  t.equal(v.rejected, 150)
  t.same(v.acceptedByInstance, { 1: 50, 2: 50 })
})

t.test('two instances each counting alone (100 each) fail', async (t) => {
  const answers = Array.from({ length: 250 }, (_, i) => {
    const instance = (i % 2) + 1
    const nth = Math.floor(i / 2)
    return nth < 100 ? accepted(instance, 99 - nth) : denied(instance)
  })
  const v = judgeRateLimit(answers, 100)
  t.equal(v.accepted, 200)
  t.match(v.problems[0], /200 requests accepted, expected exactly 100/)
})

t.test('exactly 100 accepted but the remaining counts repeat: not one shared count', async (t) => {
  const answers = shared()
  answers[1] = accepted(2, 99)
  t.match(judgeRateLimit(answers, 100).problems.join('\n'), /not 99\.\.0 once each.*99 x2/)
})

t.test('429s with a wrong header, code, details or Retry-After are each reported', async (t) => {
  const answers = shared()
  answers[100] = denied(1, { headers: { ...denied(1).headers, 'retry-after': undefined as unknown as null } })
  answers[101] = denied(2, { code: 'EVENT_RATE_LIMIT_EXCEEDED' })
  answers[102] = denied(1, {
    details: { limit: 100, window_seconds: 60, retry_after_seconds: 30, requests_remaining: 3 },
  })
  answers[103] = denied(2, { headers: { ...denied(2).headers, 'x-ratelimit-remaining': '4' } })
  answers[104] = denied(2, {
    headers: { ...denied(2).headers, 'retry-after': '50' },
    details: { limit: 100, window_seconds: 60, retry_after_seconds: 50, requests_remaining: 0 },
  })
  const p = judgeRateLimit(answers, 100).problems.join('\n')
  t.match(p, /2 answers 429s lack a Retry-After/)
  t.match(p, /1 answers 429s are not RATE_LIMIT_EXCEEDED/)
  t.match(p, /2 answers 429s lack error.details/)
  t.match(p, /1 answers 429s say X-RateLimit-Remaining other than 0/)
})

t.test('answers from one instance only, other statuses and two windows are reported', async (t) => {
  const one = shared().map((a) => ({ ...a, instance: 1 }))
  t.match(judgeRateLimit(one, 100).problems.join('\n'), /did not reach two instances/)
  const answers = shared()
  answers[200] = { instance: 1, at: AT, error: 'connection', headers: {} }
  answers[201] = { ...denied(2), headers: { ...denied(2).headers, 'x-ratelimit-reset': '1795328880' } }
  const p = judgeRateLimit(answers, 100).problems.join('\n')
  t.match(p, /1 answers were neither 200 nor 429 \(e\.g\. connection\)/)
  t.match(p, /2 different X-RateLimit-Reset values/)
})

const o = (sentAt: number, doneAt: number, status?: number): Outcome => ({
  sentAt,
  doneAt,
  status,
  error: status === undefined ? 'connection' : undefined,
  events: [{ messageId: `m${sentAt}` }],
})

t.test('unavailability: when the last 503 was and when 200s came back before the restart', async (t) => {
  const outcomes = [
    o(900, 950, 200),
    o(1000, 1100, 503),
    o(1200, 1300, 503),
    o(1250, 1400),
    o(1500, 1550, 200),
    o(1600, 1650, 200),
  ]
  t.same(unavailability(outcomes, 1000, 3000), { unavailable: 3, lastAfterMs: 400, tookOverAfterMs: 550 })
  // The restart came before any 200: no take-over while the broker was down.
  t.same(unavailability(outcomes, 1000, 1520), { unavailable: 3, lastAfterMs: 400, tookOverAfterMs: undefined })
  t.same(unavailability([o(1000, 1010, 200)], 1000, 2000), { unavailable: 0, tookOverAfterMs: 0 })
})
