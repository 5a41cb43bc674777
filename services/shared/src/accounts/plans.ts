// Plans and the limit constants of the ingest service (docs/api.md Limits; H2-H5).
// Plans are configuration (H3): DEFAULT_PLANS are docs/api.md's plans table, parsePlans() lets the
// deployment override or add plans, and Plan records on the accounts topic (A1) override
// both at run time (see key-table.ts).

import type { PlanRecord } from '../../../../schemas/records.js'

export interface Plan {
  readonly name: string
  /** Per-minute request limit, per account, shared by all its live keys; its test keys have a window of the same size (H3, H32). */
  readonly requestsPerMinute: number
  /** Per-second event limit, per account, across /v1/event and /v1/events (H4). */
  readonly eventsPerSecond: number
  /** Monthly live-key event limit, calendar month UTC (H5). */
  readonly eventsPerMonth: number
  /** Monthly test-key event limit, counted apart from the live one (H6, H33). */
  readonly testEventsPerMonth: number
  readonly emailsPerMonth: number
}

/** Fixed per-minute request window (H3); also the X-RateLimit-Window header value. */
export const REQUEST_WINDOW_SECONDS = 60
/** Fixed per-second event window (H4). */
export const EVENT_WINDOW_SECONDS = 1
/** H4: 1000 events/s per account on every default plan. */
export const DEFAULT_EVENTS_PER_SECOND = 1000
/** Plan used when an account names a plan nobody configured (the most restrictive default). */
export const FALLBACK_PLAN_NAME = 'hobby'

const UNLIMITED = 1_000_000_000

export const DEFAULT_PLANS: Readonly<Record<string, Plan>> = Object.freeze({
  hobby: Object.freeze({
    name: 'hobby',
    requestsPerMinute: 100,
    eventsPerSecond: DEFAULT_EVENTS_PER_SECOND,
    eventsPerMonth: 1_000,
    testEventsPerMonth: 1_000,
    emailsPerMonth: 100,
  }),
  launch: Object.freeze({
    name: 'launch',
    requestsPerMinute: 1_000,
    eventsPerSecond: DEFAULT_EVENTS_PER_SECOND,
    eventsPerMonth: 20_000,
    testEventsPerMonth: 20_000,
    emailsPerMonth: 5_000,
  }),
  orbit: Object.freeze({
    name: 'orbit',
    requestsPerMinute: 10_000,
    eventsPerSecond: DEFAULT_EVENTS_PER_SECOND,
    eventsPerMonth: 200_000,
    testEventsPerMonth: 200_000,
    emailsPerMonth: 25_000,
  }),
  /** Not a product plan: for benchmarks and internal accounts. */
  unlimited: Object.freeze({
    name: 'unlimited',
    requestsPerMinute: UNLIMITED,
    eventsPerSecond: UNLIMITED,
    eventsPerMonth: UNLIMITED,
    testEventsPerMonth: UNLIMITED,
    emailsPerMonth: UNLIMITED,
  }),
})

const LIMIT_FIELDS = [
  'requestsPerMinute',
  'eventsPerSecond',
  'eventsPerMonth',
  'emailsPerMonth',
  'testEventsPerMonth',
] as const
type LimitField = (typeof LIMIT_FIELDS)[number]
/** Fields a new plan may leave out, and what they default to (H33: the test cap is the live one). */
const OPTIONAL_FIELDS: Partial<Record<LimitField, (l: Record<LimitField, number>) => number>> = {
  testEventsPerMonth: (l) => l.eventsPerMonth,
}

/**
 * Requests refused for their body (400, 413, 415) a key may make per minute from one client address
 * (H32). They are not counted in the account's per-minute window (a public key must not be able to
 * use it up with requests that store nothing); past this budget that key and address get 429 before
 * a body is read.
 */
export function refusedRequestsPerMinute(plan: Plan): number {
  return Math.min(plan.requestsPerMinute, Math.max(10, Math.ceil(plan.requestsPerMinute / 10)))
}

/** Plan names are case-insensitive; this is the canonical form used as a map key. */
export const normalizePlanName = (name: string): string => name.trim().toLowerCase()

/** A Plan record from the accounts topic (A1) as a Plan. */
export function planFromRecord(r: PlanRecord): Plan {
  return {
    name: normalizePlanName(r.name),
    requestsPerMinute: r.requests_per_minute,
    eventsPerSecond: r.events_per_second,
    eventsPerMonth: r.events_per_month,
    emailsPerMonth: r.emails_per_month,
    // The Plan record has no test cap (A2: the schema only grows by compatible steps): the live one (H33).
    testEventsPerMonth: r.events_per_month,
  }
}

/**
 * Parse plan configuration: a JSON object keyed by plan name, each value an object with any of
 * requestsPerMinute, eventsPerSecond, eventsPerMonth, emailsPerMonth, testEventsPerMonth
 * (non-negative integers). A name already in `base` may give only the fields it changes; a new name
 * must give the first four (testEventsPerMonth defaults to its eventsPerMonth).
 * Returns `base` merged with the parsed plans; throws an Error naming the offending plan/field.
 *
 *   parsePlans('{"hobby":{"requestsPerMinute":200},"enterprise":{...all four...}}')
 */
export function parsePlans(json: string, base: Readonly<Record<string, Plan>> = DEFAULT_PLANS): Record<string, Plan> {
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch (err) {
    throw new Error(`plan configuration is not valid JSON: ${(err as Error).message}`, { cause: err })
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('plan configuration must be a JSON object keyed by plan name')
  }
  const out: Record<string, Plan> = { ...base }
  for (const [rawName, value] of Object.entries(parsed as Record<string, unknown>)) {
    const name = normalizePlanName(rawName)
    if (name === '') throw new Error('plan configuration: plan names must be non-empty')
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`plan "${rawName}": must be an object with ${LIMIT_FIELDS.join(', ')}`)
    }
    const fields = value as Record<string, unknown>
    for (const k of Object.keys(fields)) {
      if (k !== 'name' && !(LIMIT_FIELDS as readonly string[]).includes(k)) {
        throw new Error(`plan "${rawName}": unknown field "${k}" (expected ${LIMIT_FIELDS.join(', ')})`)
      }
    }
    const prev = base[name]
    const limits = {} as Record<LimitField, number>
    for (const f of LIMIT_FIELDS) {
      const v = fields[f]
      if (v === undefined) {
        if (prev === undefined && OPTIONAL_FIELDS[f] === undefined)
          throw new Error(`plan "${rawName}": missing "${f}" (required for a new plan)`)
        if (prev !== undefined) limits[f] = prev[f]
        continue
      }
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
        throw new Error(`plan "${rawName}": "${f}" must be a non-negative integer, got ${JSON.stringify(v)}`)
      }
      limits[f] = v
    }
    for (const f of LIMIT_FIELDS) if (limits[f] === undefined) limits[f] = OPTIONAL_FIELDS[f]!(limits)
    out[name] = Object.freeze({ name, ...limits })
  }
  return out
}

/**
 * The plan an account names: a Plan record from the accounts topic wins over the configured plan of
 * that name; an unknown name gets the fallback plan. (The key table keeps the same rule in a map.)
 */
export function planNamed(
  name: string,
  records: Iterable<PlanRecord>,
  configured: Readonly<Record<string, Plan>>,
): Plan {
  const key = normalizePlanName(name)
  for (const p of records) if (normalizePlanName(p.name) === key) return planFromRecord(p)
  return configured[key] ?? configured[FALLBACK_PLAN_NAME]!
}
