// The pipeline's records step: from the items the limits admitted, one outcome per item and the
// record of each accepted one (H5: an item the month refused gets the quota error in its place).
// Pure but for the event ids, so it is tested without Kafka.
import type { ServiceError } from '../errors.js'
import type { QuotaReservation } from '../limits/index.js'
import type { Item } from '../validation/index.js'
import { toEventRecord, toIdentifyRecord, type EventIds, type RequestContext } from '../records/index.js'
import type { SealInput } from '../privacy/record-sealer.js'

export interface ItemOutcome {
  index: number
  success: boolean
  event_id?: string
  error?: { code: string; message: string; details?: Record<string, unknown> }
}

export interface ItemOutcomes {
  /** One per item, in the order given. */
  out: ItemOutcome[]
  /** The records of the accepted items, in order. */
  built: SealInput[]
}

/** Outcomes and records of `items`: the countable ones (events) as the month `q` admitted them, the
 *  refused ones with `quotaError`; identifies always pass (they create no event). */
export function itemOutcomes(
  items: ReadonlyArray<{ index: number; item: Item }>,
  q: QuotaReservation | undefined,
  quotaError: ServiceError | undefined,
  rc: RequestContext,
  eventIds: EventIds,
): ItemOutcomes {
  const out: ItemOutcome[] = []
  const built: SealInput[] = []
  let countable = 0
  for (const { index, item } of items) {
    if (item.kind === 'event' && q !== undefined && !admitted(q, countable++)) {
      out.push({
        index,
        success: false,
        error: { code: quotaError!.code, message: quotaError!.message, details: quotaError!.details },
      })
      continue
    }
    const b: SealInput =
      item.kind === 'event'
        ? { kind: 'event', record: toEventRecord(item, rc, eventIds) }
        : { kind: 'identify', record: toIdentifyRecord(item, rc, eventIds) }
    built.push(b)
    out.push({ index, success: true, event_id: b.record.event_id })
  }
  return { out, built }
}

/** Was the i-th countable item of the request admitted by the month? */
const admitted = (q: QuotaReservation, i: number): boolean =>
  q.accepted !== undefined ? q.accepted[i] === true : i < q.granted
