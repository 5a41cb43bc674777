// The ingest pipeline after HTTP: authenticated, validated items in, one result per item out.
// In order (H2, H4-H6, A4): the per-second event limit, the monthly quota (live and test events apart, H33;
// a retried message id counted once, H34), the records (item-outcomes.ts), their Avro encoding
// (out-records.ts), one append to Kafka for every accepted item, and giving the quota back where it was
// counted when Kafka could not take them. This file orchestrates: each step lives in a file of its own,
// entered once (H79). Knows nothing of Koa, so it is tested without HTTP.
import type { Codec } from '../../../../schemas/codec.js'
import type { KeyLookup } from '../../../shared/src/accounts/key-table.js'
import { errors, type ServiceError } from '../errors.js'
import {
  eventRateError,
  monthlyLimitError,
  type EventAdmission,
  type Limits,
  type MonthlyAsk,
  type RateLimitResult,
} from '../limits/index.js'
import type { Item } from '../validation/index.js'
import type { EventIds, RequestContext } from '../records/index.js'
import { RecordsTooLargeError, type OutRecord } from '../kafka/record-appender.js'
import type { IngestMetrics } from '../http/metrics.js'
import type { ErasureSet, SuppressedUsers } from '../../../shared/src/privacy/erasure-set.js'
import type { RecordSealer } from '../privacy/record-sealer.js'
import { itemOutcomes, type ItemOutcome } from './item-outcomes.js'
import { outRecords } from './out-records.js'

export interface Appender {
  append(records: OutRecord[]): Promise<void>
}

export interface PipelineDeps {
  /** Per-second and monthly counts: this instance's, or with REDIS_URL every instance's (one script call per request). */
  limits: Limits
  codec: Pick<Codec, 'encode'>
  appender: Appender
  /** The process's event id maker (H77), made once by the app's assembly (http/app.ts). */
  eventIds: EventIds
  topics: { events: string; identifies: string }
  metrics?: Pick<IngestMetrics, 'item'>
  /** H55: the erasures in force, whose suppressed user ids are refused. */
  erasures?: Pick<ErasureSet, 'suppressedOf'>
  /** A15: set when PRIVACY_ENCRYPT is on: seals personal fields and stores their keys first. */
  sealer?: Pick<RecordSealer, 'seal' | 'sealNow'>
}

/**
 * The pipeline of both contracts, built from what the app has: our own routes (http/event-routes.ts) and
 * the Segment-compatible ones (segment/routes.ts) go through the same limits, records, suppression (H55)
 * and append. One source, so a step added here cannot be missing from one of them.
 */
export function pipelineOf(
  d: Omit<PipelineDeps, 'topics'> & { cfg: { topics: PipelineDeps['topics'] } },
): PipelineDeps {
  return {
    limits: d.limits,
    codec: d.codec,
    appender: d.appender,
    eventIds: d.eventIds,
    topics: d.cfg.topics,
    metrics: d.metrics,
    erasures: d.erasures,
    sealer: d.sealer,
  }
}

export type { ItemOutcome }

export interface Accepted {
  /** One per item given, each naming its item's index (not necessarily in the order given). */
  results: ItemOutcome[]
  /** The monthly-limit 429 (H5) when some items were refused by the quota. */
  quotaError?: ServiceError
}

const NONE_REFUSED: readonly ItemOutcome[] = Object.freeze([])

/**
 * Accepts `items` of one request for the authenticated `auth`. Throws the per-second 429 (H4) when
 * the request does not fit, and 503 (A4) when Kafka did not take the records; `rl` is the request's
 * per-minute result, whose headers the 429s carry.
 */
export async function acceptItems(
  d: PipelineDeps,
  auth: KeyLookup,
  items: ReadonlyArray<{ index: number; item: Item }>,
  rc: RequestContext,
  rl?: RateLimitResult,
): Promise<Accepted> {
  // H55: items about a suppressed user are refused first, so they count against no limit.
  const suppressed = d.erasures?.suppressedOf(auth.account.account_id)
  const refused = suppressed === undefined ? NONE_REFUSED : refusedOf(items, suppressed)
  const kept = refused.length === 0 ? items : items.filter((x) => !suppressed!.has(x.item.user.id))
  try {
    if (suppressed !== undefined && kept.length === 0) return { results: [...refused] }
    const accepted = await acceptAll(d, auth, kept, rc, rl)
    if (refused.length === 0) return accepted
    return { ...accepted, results: [...accepted.results, ...refused] }
  } finally {
    // Counted whatever the request's end, a 429 or 503 included; last, so the trip ends there (H79).
    d.metrics?.item('USER_SUPPRESSED', refused.length)
  }
}

/** The steps in order (H79): each step's file is entered once, the trip read top-down from here. */
async function acceptAll(
  d: PipelineDeps,
  auth: KeyLookup,
  items: ReadonlyArray<{ index: number; item: Item }>,
  rc: RequestContext,
  rl?: RateLimitResult,
): Promise<Accepted> {
  const env = rc.environment
  const admission = await admit(d, auth, items, rc)
  if (!admission.rate.allowed) throw eventRateError(admission.rate, rl)
  const q = admission.quota
  // Kafka (the keys' write, the append) failing is a 503 with the month given back where it was
  // counted; records are encoded outside it, so a programmer error stays a 500 (docs/api.md).
  const kafkaFailed = (err: unknown) => {
    if (q !== undefined) admission.heldBy?.giveBack(auth.account.account_id, env, q, rc.receivedAt)
    // H37: records the topic can never take are the request's fault, and a retry would fail the same way.
    if (err instanceof RecordsTooLargeError) return errors.recordsTooLarge(err.limitBytes, err)
    return errors.unavailable(2, err)
  }
  const quotaError = q !== undefined && q.granted < countableOf(items) ? monthlyLimitError(q, rl, env) : undefined
  const { out, built } = itemOutcomes(items, q, quotaError, rc, d.eventIds)
  // A15: with crypto-shredding on, the one place records are sealed, after their keys are stored.
  // A20: every key stored already (the steady state) seals without a promise.
  const sealed = d.sealer
    ? (d.sealer.sealNow(built) ??
      (await d.sealer.seal(built).catch((err): never => {
        throw kafkaFailed(err)
      })))
    : built
  const records = outRecords(d, sealed, built)
  try {
    await d.appender.append(records)
  } catch (err) {
    throw kafkaFailed(err)
  }
  d.metrics?.item('accepted', built.length)
  if (quotaError !== undefined) d.metrics?.item(quotaError.code, items.length - built.length)
  return { results: out, quotaError }
}

/** The outcomes of the items about a suppressed user (H55). */
function refusedOf(items: ReadonlyArray<{ index: number; item: Item }>, suppressed: SuppressedUsers) {
  const refused: ItemOutcome[] = []
  const { code, message } = errors.userSuppressed()
  for (const x of items)
    if (suppressed.has(x.item.user.id)) refused.push({ index: x.index, success: false, error: { code, message } })
  return refused
}

const countableOf = (items: ReadonlyArray<{ item: Item }>): number => {
  let n = 0
  for (const x of items) if (x.item.kind === 'event') n++
  return n
}

/** The per-second limit (H4) and the month of the key's environment (H5, H33): every event counts,
 *  by its message id when it has one (H34); identifies create no event. */
function admit(
  d: PipelineDeps,
  auth: KeyLookup,
  items: ReadonlyArray<{ item: Item }>,
  rc: RequestContext,
): EventAdmission | Promise<EventAdmission> {
  const { account, plan } = auth
  const ids: Array<string | undefined> = []
  for (const x of items) if (x.item.kind === 'event') ids.push(x.item.message_id)
  const month: MonthlyAsk = {
    environment: rc.environment,
    ids,
    limit: rc.environment === 'live' ? plan.eventsPerMonth : plan.testEventsPerMonth,
  }
  return d.limits.admitEvents(account.account_id, items.length, plan.eventsPerSecond, month, rc.receivedAt)
}
