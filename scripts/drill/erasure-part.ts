// The drill's erasure (A12; docs/privacy.md): one person of the drill's account sends `count` events
// before the faults; their erasure is requested as the first fault starts, and must complete while
// the faults go on. After the load, the receipt must say "projections purged" and no row of the person
// may be left in any person table (FINAL); everyone else's acknowledged ids are reconciled as always
// (the person's ids are on the topic but not expected in ClickHouse). With sealing on (A29) the receipt
// must also say "Kafka history unreadable", and every record of the person on the events topic must be
// sealed under a key whose last record on the keys topic is its tombstone (A17): no reader can open it.
import type { ClickHouseClient } from '@clickhouse/client'
import type { PrivacyAdmin } from '../../services/shared/src/privacy/privacy-admin.js'
import type { ErasureRecord } from '../../schemas/records.js'
import { liveKeyIds, type KeyEntry } from '../../services/shared/src/privacy/keys-scan.js'

export interface ErasurePartSettings {
  ingestUrl: string
  key: string
  accountId: string
  userId: string
  count: number
  /** How long the request is retried while a fault keeps Kafka from taking it, and the receipt waited for. */
  timeoutMs: number
}

export interface ErasureOutcome {
  notes: string[]
  problems: string[]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sends the person's events before any fault; returns the acknowledged event ids. */
export async function seedPerson(s: ErasurePartSettings): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < s.count; i++) {
    const res = await fetch(`${s.ingestUrl}/v1/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
      body: JSON.stringify({ event: 'drill_erased', user: { id: s.userId, email: `${s.userId}@example.test` } }),
      signal: AbortSignal.timeout(30_000),
    })
    const id = res.status === 200 ? acceptedEventId(await res.json().catch(() => null)) : undefined
    if (id !== undefined) ids.push(id)
  }
  return ids
}

/** The event id of a 200 to /v1/event: `data.results[0].event_id` (docs/api.md). */
export function acceptedEventId(body: unknown): string | undefined {
  const r = (body as { data?: { results?: { success?: boolean; event_id?: unknown }[] } } | null)?.data?.results?.[0]
  return r?.success !== false && typeof r?.event_id === 'string' ? r.event_id : undefined
}

/** Requests the erasure, again while a fault refuses it, until `timeoutMs`. */
export async function requestDuringFault(
  privacy: PrivacyAdmin,
  s: ErasurePartSettings,
  say: (m: string) => void,
): Promise<ErasureRecord> {
  const until = Date.now() + s.timeoutMs
  for (;;) {
    try {
      return await privacy.requestErasure({
        accountId: s.accountId,
        userId: s.userId,
        requestedBy: 'drill',
        suppress: false,
      })
    } catch (err) {
      if (Date.now() > until) throw err
      say(`erasure request refused (${(err as Error).message.split('\n')[0]}); asking again`)
      await sleep(2000)
    }
  }
}

/** Waits for the receipt (before the reconciliation counts ClickHouse: the person's rows must be gone); with
 *  sealing on, for its "Kafka history unreadable" step too. */
export async function awaitReceipt(
  privacy: PrivacyAdmin,
  s: ErasurePartSettings,
  requested: Promise<ErasureRecord>,
): Promise<ErasureOutcome> {
  let e: ErasureRecord
  try {
    e = await requested
  } catch (err) {
    return { notes: [], problems: [`the erasure could not be requested: ${(err as Error).message.split('\n')[0]}`] }
  }
  const done = await privacy.purged(s.accountId, s.userId, e.erasure_id, s.timeoutMs)
  if (!done?.projections_purged_at)
    return { notes: [], problems: [`the erasure's receipt did not complete within ${s.timeoutMs / 1000} s`] }
  const notes = [
    `erasure requested during this fault: receipt ${done.projections_purged_at - e.requested_at} ms after the request`,
  ]
  if (privacy.keysTopic === undefined) return { notes, problems: [] }
  const h = await privacy.reached('history_unreadable_at', s.accountId, s.userId, e.erasure_id, s.timeoutMs)
  if (!h?.history_unreadable_at)
    return { notes, problems: [`the receipt's "Kafka history unreadable" did not come within ${s.timeoutMs / 1000} s`] }
  notes.push(`Kafka history unreadable ${h.history_unreadable_at - e.requested_at} ms after the request`)
  return { notes, problems: [] }
}

/** A17: what of the person's records on the events topic could still be opened: any in clear, and any
 *  sealed with a key whose last record on the keys topic is not its tombstone. `sealedBy`: event id to the
 *  key id of its record (null: in clear), as read from the topic. */
export function openableRecords(sealedBy: ReadonlyMap<string, string | null>, keys: readonly KeyEntry[]): string[] {
  const ids = [...sealedBy.values()]
  const sealedWith = new Set(ids.filter((id) => id !== null))
  const live = new Set(liveKeyIds(keys, (id) => sealedWith.has(id)))
  const clear = ids.filter((id) => id === null).length
  const open = ids.filter((id) => id !== null && live.has(id)).length
  return [
    ...(clear ? [`${clear} of the erased person's records are in clear on the events topic`] : []),
    ...(open ? [`${open} of the erased person's records still open with a key on the keys topic`] : []),
  ]
}

/** What is left of the person after the receipt: rows in any person table, or any of their event ids. */
export async function erasureLeftovers(
  ch: ClickHouseClient,
  db: string,
  s: ErasurePartSettings,
  seeded: string[],
): Promise<string[]> {
  const problems: string[] = []
  // Every table with a person's rows, as the projector's purge finds them (A12).
  const tables = await (
    await ch.query({
      query: `SELECT table FROM system.columns WHERE database = '${db}' AND name IN ('account_id', 'user_id')
        AND table IN (SELECT name FROM system.tables WHERE database = '${db}' AND engine LIKE '%MergeTree')
        GROUP BY table HAVING count() = 2`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string }>()
  for (const { table } of tables) {
    const left = await rows(ch, `SELECT count() AS n FROM ${db}.${table} FINAL WHERE user_id = '${s.userId}'`)
    if (left > 0) problems.push(`${left} rows of the erased person are left in ${table}`)
  }
  const ids = seeded.map((id) => `'${id}'`).join(',')
  const stored = ids ? await rows(ch, `SELECT count() AS n FROM ${db}.events FINAL WHERE event_id IN (${ids})`) : 0
  if (stored > 0) problems.push(`${stored} of the erased person's acknowledged events are still in events`)
  return problems
}

async function rows(ch: ClickHouseClient, query: string): Promise<number> {
  const [r] = await (await ch.query({ query, format: 'JSONEachRow' })).json<{ n: string }>()
  return Number(r?.n ?? 0)
}
