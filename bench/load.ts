// Load generation for the bench: autocannon runs with one set of settings for the baseline and
// our endpoints, the end-to-end probe (HTTP ack to row visible in ClickHouse), and the short
// run that shows what the default plans allow.
import autocannon from 'autocannon'
import type { ClickHouseClient } from '@clickhouse/client'

export interface LoadSettings {
  connections: number
  durationSec: number
  pipelining?: number
}

export interface LoadFigures {
  requestsPerSec: number
  eventsPerSec: number
  latencyMs: { p50: number; p90: number; p99: number; max: number }
  requests: number
  ok2xx: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  durationSec: number
}

// withMessageIds: every event carries a message_id, as the SDK sends them (sdk/src/items.ts), so ingest
// derives its id by UUIDv5 (H16) rather than UUIDv7. The body is sent again and again, so the ids
// repeat: fine for the request path alone (bench/http-path.ts), not for a run that stores them.
export function singleEventBody(withMessageIds = false): string {
  return JSON.stringify({
    event: 'bench_page_viewed',
    user: { id: 'bench_user_1', traits: { plan: 'pro' } },
    properties: { path: '/pricing', referrer: 'https://example.com/', value: 42 },
    context: { platform: 'web', app_version: '1.2.3' },
    ...(withMessageIds ? { message_id: benchMessageId(0) } : {}),
  })
}

export function batchBody(n: number, withMessageIds = false): string {
  const sentAt = new Date().toISOString()
  const events = Array.from({ length: n }, (_, i) => ({
    type: 'event',
    event: 'bench_item_added',
    user: { id: `bench_user_${i % 17}` },
    timestamp: sentAt,
    properties: { sku: `sku_${i}`, quantity: 1 + (i % 3), price: 9.99 },
    context: { platform: 'web' },
    ...(withMessageIds ? { message_id: benchMessageId(i) } : {}),
  }))
  return JSON.stringify({ sent_at: sentAt, events })
}

/** A message_id shaped like the SDK's (a UUID). */
function benchMessageId(i: number): string {
  return `7d3c9a1e-2b4f-4c8e-9d1a-${i.toString(16).padStart(12, '0')}`
}

export async function runLoad(
  url: string,
  o: LoadSettings & { body?: string; key?: string; eventsPerRequest?: number; overallRate?: number; title?: string },
): Promise<LoadFigures> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (o.key) headers.authorization = `Bearer ${o.key}`
  const r = await autocannon({
    url,
    method: 'POST',
    headers,
    body: o.body,
    connections: o.connections,
    duration: o.durationSec,
    pipelining: o.pipelining ?? 1,
    timeout: 10,
    overallRate: o.overallRate,
    title: o.title,
  })
  const statusCodes: Record<string, number> = {}
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {}))
    statusCodes[code] = (s as { count?: number }).count ?? 0
  const ok2xx = r['2xx']
  const per = o.eventsPerRequest ?? 1
  // Throughput counts answered 2xx requests only: an error is never a processed event.
  const secs = r.duration || o.durationSec
  const rps = ok2xx / secs
  return {
    requestsPerSec: round(rps),
    eventsPerSec: round(rps * per),
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    requests: r.requests.total,
    ok2xx,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    durationSec: round(secs),
  }
}

export interface E2EFigures {
  targetEventsPerSec: number
  load: LoadFigures
  markers: number
  seen: number
  missing: number
  latencyMs: { p50: number; p95: number; p99: number; max: number }
}

/**
 * End to end at a fixed rate: autocannon sends `rate` single events/s while marker events are sent
 * every `markerEveryMs`; each marker's HTTP ack time is compared with the moment a poll of the
 * events table first sees its event_id (poll resolution `pollMs`, which is part of the figure).
 */
export async function runEndToEnd(
  ingestUrl: string,
  key: string,
  ch: ClickHouseClient,
  database: string,
  accountId: string,
  o: {
    rate: number
    durationSec: number
    connections: number
    markerEveryMs?: number
    pollMs?: number
    graceMs?: number
  },
): Promise<E2EFigures> {
  if (!/^\w+$/.test(accountId) || !/^\w+$/.test(database))
    throw new Error(`unexpected account or database name ${accountId} ${database}`)
  const markerEveryMs = o.markerEveryMs ?? 100
  const pollMs = o.pollMs ?? 50
  const marker = `bench_e2e_marker`
  const acked = new Map<string, number>()
  const latencies: number[] = []
  let markersSent = 0
  let stop = false

  const sendMarkers = (async () => {
    let next = Date.now()
    while (!stop) {
      next += markerEveryMs
      markersSent++
      fetch(`${ingestUrl}/v1/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ event: marker, user: { id: 'bench_e2e' }, properties: { n: markersSent } }),
      })
        .then(async (res) => {
          const at = Date.now()
          const body = (await res.json()) as { data?: { results?: Array<{ event_id?: string }> } }
          const id = body?.data?.results?.[0]?.event_id
          if (res.ok && id) acked.set(id, at)
        })
        .catch(() => undefined)
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())))
    }
  })()

  const seen = new Set<string>()
  const poll = async () => {
    const rows = await (
      await ch.query({
        query: `SELECT event_id FROM ${database}.events WHERE account_id = {account:String} AND event = {marker:String}`,
        query_params: { account: accountId, marker },
        format: 'JSONEachRow',
      })
    ).json<{ event_id: string }>()
    const at = Date.now()
    for (const { event_id } of rows) {
      if (seen.has(event_id)) continue
      const ack = acked.get(event_id)
      if (ack === undefined) continue // ack not read yet; counted on a later poll
      seen.add(event_id)
      latencies.push(at - ack)
    }
  }
  let polling = true
  const poller = (async () => {
    while (polling) {
      await poll().catch(() => undefined)
      await new Promise((r) => setTimeout(r, pollMs))
    }
  })()

  const load = await runLoad(`${ingestUrl}/v1/event`, {
    connections: o.connections,
    durationSec: o.durationSec,
    overallRate: o.rate,
    body: singleEventBody(),
    key,
  })
  stop = true
  await sendMarkers
  const graceEnd = Date.now() + (o.graceMs ?? 10_000)
  while (Date.now() < graceEnd && seen.size < acked.size) await new Promise((r) => setTimeout(r, pollMs))
  polling = false
  await poller

  latencies.sort((a, b) => a - b)
  return {
    targetEventsPerSec: o.rate,
    load,
    markers: acked.size,
    seen: seen.size,
    missing: acked.size - seen.size,
    latencyMs: {
      p50: pct(latencies, 50),
      p95: pct(latencies, 95),
      p99: pct(latencies, 99),
      max: latencies.at(-1) ?? NaN,
    },
  }
}

export interface PlanDemo {
  plan: string
  endpoint: string
  sent: number
  eventsPerRequest: number
  statusCodes: Record<string, number>
  errorCodes: Record<string, number>
  note: string
}

/** Fires `n` requests (with `concurrency` in flight) and counts status and error codes. */
export async function burst(
  url: string,
  key: string,
  body: string,
  n: number,
  concurrency: number,
): Promise<Pick<PlanDemo, 'statusCodes' | 'errorCodes'>> {
  const statusCodes: Record<string, number> = {}
  const errorCodes: Record<string, number> = {}
  let i = 0
  const worker = async () => {
    while (i < n) {
      i++
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body,
      })
      const json = (await res.json().catch(() => ({}))) as { error?: { code?: string } }
      statusCodes[res.status] = (statusCodes[res.status] ?? 0) + 1
      if (json?.error?.code) errorCodes[json.error.code] = (errorCodes[json.error.code] ?? 0) + 1
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { statusCodes, errorCodes }
}

export function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

const round = (x: number) => Math.round(x * 10) / 10
