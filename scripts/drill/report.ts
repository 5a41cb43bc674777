// The drill's verdict, computed from what the load saw and what reconciliation found: one row per
// fault window (acknowledged ids attributed to the window in which they were acked), rendered as a
// terminal table and as markdown for docs/reliability.md. Pure functions: unit-tested in report.test.ts.

/** One HTTP request of the load and how it ended. */
export interface Outcome {
  sentAt: number
  doneAt: number
  /** HTTP status; absent when the request failed without an answer. */
  status?: number
  retryAfter?: string | null
  error?: 'connection' | 'timeout'
  /** One entry per event in the request; `eventId` only for items the answer accepted. */
  events: Array<{ messageId: string; eventId?: string }>
  /** Why this answer breaks the contract (a 5xx other than 503 with Retry-After, a 200 without ids). */
  bad?: string
}

/** A span of the run: the baseline before the first fault, then one per fault from its injection
 * to the next fault's injection (its recovery time included). */
export interface FaultWindow {
  name: string
  title: string
  startedAt: number
  endedAt: number
  notes: string[]
  /** Findings that fail the run: a service that exited on its own, a drain that did not finish, a
   * fault whose own recovery failed. */
  problems: string[]
}

export interface Reconciliation {
  /** event_ids read back from the events topic (read_committed), with how often each appears. */
  topic: Map<string, number>
  /** event_ids in `events FINAL`. */
  clickhouse: Set<string>
  /** event_ids seen more than once in `SELECT event_id, count() FROM events FINAL GROUP BY event_id`. */
  duplicated: Map<string, number>
  topicComplete: boolean
  projectionCaughtUp: boolean
}

export interface Row {
  window: string
  title: string
  requests: number
  acked: number
  status503: number
  non2xx: number
  connectionErrors: number
  timeouts: number
  badAnswers: number
  lostTopic: number
  lostClickhouse: number
  duplicated: number
  /** Seconds from the fault's injection until 200s resumed; 0 when nothing was disrupted, null: never. */
  resumedAfter: number | null
  problems: string[]
  notes: string[]
  lostExamples: string[]
}

/** A request counts as disrupted when it did not get a 2xx or took this long. */
export const SLOW_MS = 5000

export function classifyAnswer(status: number, retryAfter: string | null | undefined): string | undefined {
  if (status === 503)
    return retryAfter && /^\d+$/.test(retryAfter.trim()) ? undefined : '503 without a Retry-After in seconds'
  if (status >= 500) return `${status} (only 503 with Retry-After may be a 5xx)`
  return undefined
}

/** Seconds from `faultStart` until the first 2xx of a request sent after the last disrupted one of this
 * window. Requests still unanswered when the next fault begins belong to that fault's disruption, not this
 * one's; the 2xx that ends the disruption may come after the window (a slow recovery is measured, not cut
 * off). 0: nothing was disrupted; null: 200s never came back before the load stopped. */
export function resumedAfter(outcomes: Outcome[], faultStart: number, windowEnd: number): number | null {
  const disrupted = (o: Outcome) =>
    o.status === undefined || o.status < 200 || o.status >= 300 || o.doneAt - o.sentAt > SLOW_MS
  let lastBad = -Infinity
  for (const o of outcomes)
    if (o.sentAt >= faultStart && o.doneAt < windowEnd && disrupted(o)) lastBad = Math.max(lastBad, o.sentAt)
  if (lastBad === -Infinity) return 0
  let firstGood = Infinity
  for (const o of outcomes) if (o.sentAt > lastBad && !disrupted(o)) firstGood = Math.min(firstGood, o.doneAt)
  return firstGood === Infinity ? null : Math.round((firstGood - faultStart) / 100) / 10
}

export function summarise(windows: FaultWindow[], outcomes: Outcome[], rec: Reconciliation): Row[] {
  return windows.map((w) => {
    const mine = outcomes.filter((o) => o.doneAt >= w.startedAt && o.doneAt < w.endedAt)
    const ackedIds = mine.flatMap((o) => o.events.filter((e) => e.eventId).map((e) => e.eventId!))
    const lostTopic = ackedIds.filter((id) => !rec.topic.has(id))
    const lostCh = ackedIds.filter((id) => !rec.clickhouse.has(id))
    return {
      window: w.name,
      title: w.title,
      requests: mine.length,
      acked: ackedIds.length,
      status503: mine.filter((o) => o.status === 503).length,
      non2xx: mine.filter((o) => o.status !== undefined && (o.status < 200 || o.status >= 300) && o.status !== 503)
        .length,
      connectionErrors: mine.filter((o) => o.error === 'connection').length,
      timeouts: mine.filter((o) => o.error === 'timeout').length,
      badAnswers: mine.filter((o) => o.bad).length,
      lostTopic: lostTopic.length,
      lostClickhouse: lostCh.length,
      duplicated: ackedIds.filter((id) => rec.duplicated.has(id)).length,
      resumedAfter: w.name === 'baseline' ? 0 : resumedAfter(outcomes, w.startedAt, w.endedAt),
      problems: w.problems,
      notes: w.notes,
      lostExamples: [...new Set([...lostTopic, ...lostCh])].slice(0, 5),
    }
  })
}

export interface Verdict {
  ok: boolean
  failures: string[]
}

export function verdict(rows: Row[], rec: Reconciliation, outcomes: Outcome[]): Verdict {
  const failures: string[] = []
  for (const r of rows) {
    if (r.lostTopic) failures.push(`${r.window}: ${r.lostTopic} acknowledged events are not in the events topic`)
    if (r.lostClickhouse) failures.push(`${r.window}: ${r.lostClickhouse} acknowledged events are not in ClickHouse`)
    if (r.duplicated)
      failures.push(`${r.window}: ${r.duplicated} acknowledged events are duplicated in ClickHouse (FINAL)`)
    if (r.badAnswers)
      failures.push(
        `${r.window}: ${r.badAnswers} answers broke the contract (5xx other than 503 with Retry-After, or 200 without event ids)`,
      )
    for (const e of r.problems) failures.push(`${r.window}: ${e}`)
    if (r.resumedAfter === null)
      failures.push(`${r.window}: 200s never resumed after this fault (until the load stopped)`)
    if (r.non2xx)
      failures.push(
        `${r.window}: ${r.non2xx} answers were 4xx (or other non-2xx, non-503) to valid requests within the plan: a client would drop those events`,
      )
  }
  const acked = new Set(outcomes.flatMap((o) => o.events.filter((e) => e.eventId).map((e) => e.eventId!)))
  const strayDups = [...rec.duplicated.keys()].filter((id) => !acked.has(id)).length
  if (strayDups) failures.push(`${strayDups} unacknowledged events are duplicated in ClickHouse (FINAL)`)
  if (!rec.topicComplete) failures.push('the events topic could not be read to its end (an open transaction?)')
  if (!rec.projectionCaughtUp) failures.push('the projector did not catch up with the topic before the timeout')
  const badExamples = outcomes
    .filter((o) => o.bad)
    .slice(0, 3)
    .map((o) => o.bad!)
  if (badExamples.length)
    failures.push(`examples of contract-breaking answers: ${[...new Set(badExamples)].join('; ')}`)
  return { ok: failures.length === 0, failures }
}

const COLUMNS: Array<[string, (r: Row) => string]> = [
  ['fault', (r) => r.title],
  ['acked', (r) => String(r.acked)],
  ['503s', (r) => String(r.status503)],
  ['other non-2xx', (r) => String(r.non2xx)],
  ['conn. errors', (r) => String(r.connectionErrors + r.timeouts)],
  ['bad 5xx', (r) => String(r.badAnswers)],
  ['lost (topic)', (r) => String(r.lostTopic)],
  ['lost (ClickHouse)', (r) => String(r.lostClickhouse)],
  ['duplicated', (r) => String(r.duplicated)],
  ['200s resumed after (s)', (r) => (r.resumedAfter === null ? 'never' : r.resumedAfter.toFixed(1))],
]

function totals(rows: Row[]): Row {
  const sum = (f: (r: Row) => number) => rows.reduce((a, r) => a + f(r), 0)
  return {
    window: 'total',
    title: 'total',
    requests: sum((r) => r.requests),
    acked: sum((r) => r.acked),
    status503: sum((r) => r.status503),
    non2xx: sum((r) => r.non2xx),
    connectionErrors: sum((r) => r.connectionErrors),
    timeouts: sum((r) => r.timeouts),
    badAnswers: sum((r) => r.badAnswers),
    lostTopic: sum((r) => r.lostTopic),
    lostClickhouse: sum((r) => r.lostClickhouse),
    duplicated: sum((r) => r.duplicated),
    resumedAfter: 0,
    problems: [],
    notes: [],
    lostExamples: [],
  }
}

export function renderText(rows: Row[]): string {
  const all = [...rows, totals(rows)]
  const cells = [
    COLUMNS.map(([h]) => h),
    ...all.map((r) => COLUMNS.map(([, f], i) => (r.window === 'total' && i === 9 ? '' : f(r)))),
  ]
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)))
  const line = (c: string[]) => c.map((s, i) => (i === 0 ? s.padEnd(widths[i]) : s.padStart(widths[i]))).join('  ')
  const out = [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)]
  for (const r of rows) for (const n of [...r.problems, ...r.notes]) out.push(`  ${r.title}: ${n}`)
  for (const r of rows)
    if (r.lostExamples.length) out.push(`  ${r.title}: lost event_ids, e.g. ${r.lostExamples.join(', ')}`)
  return out.join('\n')
}

export function renderMarkdown(rows: Row[]): string {
  const all = [...rows, totals(rows)]
  const out = [
    `| ${COLUMNS.map(([h]) => h).join(' | ')} |`,
    `| ${COLUMNS.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...all.map(
      (r) =>
        `| ${COLUMNS.map(([, f], i) => (r.window === 'total' ? (i === 0 ? '**total**' : i === 9 ? '' : `**${f(r)}**`) : f(r))).join(' | ')} |`,
    ),
  ]
  const notes = rows.flatMap((r) => [...r.problems, ...r.notes].map((n) => `- ${r.title}: ${n}`))
  if (notes.length) out.push('', ...notes)
  return out.join('\n')
}
