// The one health shape of every service (docs/api.md Endpoints, docs/design.md H62). Liveness says
// only that the process answers: it never depends on Kafka, the registry or ClickHouse, so their
// outage does not get a service restarted in a loop. Readiness says whether work sent here now can be
// done: { status: 'ok' | 'unavailable', checks: { <name>: { ok, detail? } } }, 503 with Retry-After
// while any check fails. Ingest's admin listener answered this shape first (H36); the projector and the
// dashboard answer it too.
import type { Answer } from './answer.js'

export interface Check {
  ok: boolean
  detail?: string
}

export type Checks = Record<string, Check>

export interface ReadinessReport {
  ready: boolean
  checks: Checks
}

/** Seconds an unready instance tells its caller (a load balancer, a script) to wait. */
export const NOT_READY_RETRY_AFTER_S = 2

export function liveAnswer(): Answer {
  return { status: 200, body: { status: 'ok' } }
}

export function readinessAnswer(r: ReadinessReport): Answer {
  if (r.ready) return { status: 200, body: { status: 'ok', checks: r.checks } }
  return {
    status: 503,
    headers: { 'Retry-After': String(NOT_READY_RETRY_AFTER_S) },
    body: { status: 'unavailable', checks: r.checks },
  }
}

/** Checks from the states a service's start-up and consume loop record ('ok' or a short reason). */
export function checksOf(states: Record<string, string>): Checks {
  return Object.fromEntries(Object.entries(states).map(([k, v]) => [k, { ok: v === 'ok', detail: v }]))
}

/** A report of such states: ready when every one is 'ok'. */
export function reportOf(states: Record<string, string>): ReadinessReport {
  const checks = checksOf(states)
  return { ready: Object.values(checks).every((c) => c.ok), checks }
}

/** The names of the checks that fail, in their order (for a log line, or a test reading an answer). */
export function failingChecks(checks: Checks): string[] {
  return Object.keys(checks).filter((k) => !checks[k]!.ok)
}
