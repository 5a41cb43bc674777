// Judging the cluster drill's parts that the single-node report does not cover: the shared
// per-minute limit across two ingest instances (part a), and when a fault's 503s stopped relative
// to the fault (parts b and c). Pure functions: unit-tested in cluster-report.test.ts.
import type { Outcome } from './report.js'

/** One answer of the rate-limit part, as the drill saw it. */
export interface LimitAnswer {
  /** Which ingest instance it was sent to (1 or 2). */
  instance: number
  status?: number
  error?: string
  headers: Record<string, string | null>
  /** `error.code` and `error.details` of a JSON error body. */
  code?: string
  details?: Record<string, unknown>
  /** When the answer arrived (ms since the epoch), to check Retry-After against X-RateLimit-Reset. */
  at: number
}

export interface LimitVerdict {
  accepted: number
  rejected: number
  other: number
  acceptedByInstance: Record<number, number>
  problems: string[]
}

const int = (v: string | null | undefined): number | undefined =>
  v != null && /^\d+$/.test(v.trim()) ? Number(v) : undefined

/** Exactly `limit` accepted whichever instance took them, the rest 429 RATE_LIMIT_EXCEEDED with the
 * headers and details SPEC gives (Limits, Errors); every answer's headers from the shared window. */
export function judgeRateLimit(answers: LimitAnswer[], limit: number): LimitVerdict {
  const problems: string[] = []
  const ok = answers.filter((a) => a.status === 200)
  const denied = answers.filter((a) => a.status === 429)
  const other = answers.filter((a) => a.status !== 200 && a.status !== 429)
  const acceptedByInstance: Record<number, number> = {}
  for (const a of ok) acceptedByInstance[a.instance] = (acceptedByInstance[a.instance] ?? 0) + 1
  if (ok.length !== limit) problems.push(`${ok.length} requests accepted, expected exactly ${limit}`)
  if (other.length)
    problems.push(`${other.length} answers were neither 200 nor 429 (e.g. ${other[0].status ?? other[0].error})`)
  const instances = new Set(answers.map((a) => a.instance))
  if (instances.size < 2) problems.push('the requests did not reach two instances')

  const bad = (what: string, list: LimitAnswer[]) => list.length && problems.push(`${list.length} answers ${what}`)
  bad(
    'lack X-RateLimit-Limit equal to the plan limit',
    answers.filter((a) => a.status !== undefined && int(a.headers['x-ratelimit-limit']) !== limit),
  )
  bad(
    'lack X-RateLimit-Window: 60',
    answers.filter((a) => a.status !== undefined && a.headers['x-ratelimit-window'] !== '60'),
  )
  const resets = new Set(answers.filter((a) => a.status !== undefined).map((a) => a.headers['x-ratelimit-reset']))
  if (resets.size !== 1)
    problems.push(
      `the answers name ${resets.size} different X-RateLimit-Reset values (one window expected): ${[...resets].slice(0, 3).join(', ')}`,
    )

  // With one shared counter each accepted request leaves a different number of requests.
  const remaining = ok.map((a) => int(a.headers['x-ratelimit-remaining'])).sort((x, y) => (x ?? -1) - (y ?? -1))
  const expected = Array.from({ length: Math.min(ok.length, limit) }, (_, i) => i)
  if (ok.length === limit && remaining.some((r, i) => r !== expected[i])) {
    problems.push(
      `the accepted answers' X-RateLimit-Remaining are not ${limit - 1}..0 once each (not one shared count): ${summariseCounts(remaining)}`,
    )
  }
  bad(
    '429s say X-RateLimit-Remaining other than 0',
    denied.filter((a) => a.headers['x-ratelimit-remaining'] !== '0'),
  )
  bad(
    '429s are not RATE_LIMIT_EXCEEDED',
    denied.filter((a) => a.code !== 'RATE_LIMIT_EXCEEDED'),
  )
  bad(
    '429s lack a Retry-After of 1 to 60 s that ends the window (X-RateLimit-Reset)',
    denied.filter((a) => {
      const retry = int(a.headers['retry-after'])
      const reset = int(a.headers['x-ratelimit-reset'])
      return (
        retry === undefined ||
        retry < 1 ||
        retry > 60 ||
        reset === undefined ||
        Math.abs(a.at / 1000 + retry - reset) > 2
      )
    }),
  )
  bad(
    '429s lack error.details {limit, window_seconds: 60, retry_after_seconds, requests_remaining: 0}',
    denied.filter((a) => {
      const d = a.details ?? {}
      return (
        d.limit !== limit ||
        d.window_seconds !== 60 ||
        d.requests_remaining !== 0 ||
        d.retry_after_seconds !== int(a.headers['retry-after'])
      )
    }),
  )
  return { accepted: ok.length, rejected: denied.length, other: other.length, acceptedByInstance, problems }
}

function summariseCounts(values: Array<number | undefined>): string {
  const counts = new Map<string, number>()
  for (const v of values) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1)
  const repeated = [...counts].filter(([, n]) => n > 1).slice(0, 5)
  return repeated.length
    ? `repeated: ${repeated.map(([v, n]) => `${v} x${n}`).join(', ')}`
    : `values ${values.slice(0, 5).join(', ')}...`
}

export interface Unavailability {
  /** Answers 503, connection errors and timeouts among requests sent from `from` until `until`. */
  unavailable: number
  /** ms from `from` until the end of the last such answer; undefined: none. */
  lastAfterMs?: number
  /** ms from `from` until the first 2xx of a request sent after the last unavailable answer began,
   * if that 2xx came before `until` (the remaining brokers or instance took over); undefined: not before `until`. */
  tookOverAfterMs?: number
}

/** How requests sent between `from` (the fault) and `until` (the restart, or the window's end) fared. */
export function unavailability(outcomes: Outcome[], from: number, until: number): Unavailability {
  const sent = outcomes.filter((o) => o.sentAt >= from && o.sentAt < until)
  const down = sent.filter((o) => o.status === 503 || o.error !== undefined)
  if (!down.length) {
    const first = sent.find((o) => o.status !== undefined && o.status >= 200 && o.status < 300 && o.doneAt < until)
    return { unavailable: 0, tookOverAfterMs: first ? 0 : undefined }
  }
  const lastSent = Math.max(...down.map((o) => o.sentAt))
  const lastDone = Math.max(...down.map((o) => o.doneAt))
  const good = outcomes.filter(
    (o) => o.sentAt > lastSent && o.status !== undefined && o.status >= 200 && o.status < 300 && o.doneAt < until,
  )
  const firstGood = good.length ? Math.min(...good.map((o) => o.doneAt)) : undefined
  return {
    unavailable: down.length,
    lastAfterMs: lastDone - from,
    tookOverAfterMs: firstGood === undefined ? undefined : firstGood - from,
  }
}
