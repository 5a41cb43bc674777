// The dashboard scenario's refused requests (BENCHMARKS.md "Dashboard pages"): one account refused
// all week, as ingest would report it (H65: one record per account per drain, at most 5 samples),
// one drain a minute over the 7 days the refusal tables keep, mapped to rows by the projector's own
// refusal-rows.ts and inserted as its projection inserts them. Not measured.
import type { ClickHouseClient } from '@clickhouse/client'
import type { RefusalsRecord } from '../schemas/records.js'
import { refusalRows } from '../services/projector/src/refusals/refusal-rows.js'

const MINUTE = 60_000
const WEEK_MINUTES = 7 * 24 * 60
const CODES = [
  { code: 'VALIDATION_ERROR', endpoint: '/v1/batch', message: 'batch[3].event is required' },
  { code: 'PAYLOAD_TOO_LARGE', endpoint: '/v1/track', message: 'the body is larger than 512 KiB' },
  { code: 'INVALID_JSON', endpoint: '/v1/event', message: 'the body is not JSON' },
]
const CHUNK = 20_000

/** The drain of minute `m` (0 = a week ago): three codes counted, two samples of 500-odd characters. */
export function refusalsRecord(accountId: string, nowMs: number, m: number): RefusalsRecord {
  const minute = Math.floor(nowMs / MINUTE) * MINUTE - (WEEK_MINUTES - m) * MINUTE
  const environment = m % 10 === 0 ? 'test' : 'live'
  return {
    account_id: accountId,
    instance_id: `ingest-${m % 2}`,
    drained_at: minute + 59_000,
    counts: CODES.map((c, i) => ({
      environment,
      code: c.code,
      endpoint: c.endpoint,
      minute,
      count: 1 + ((m + i) % 7),
    })),
    samples: CODES.slice(0, 2).map((c, i) => ({
      environment,
      code: c.code,
      endpoint: c.endpoint,
      at: minute + i * 1000,
      message: c.message,
      body: JSON.stringify({
        batch: [{ userId: `user_${m % 5000}`, properties: { path: `/app/${m % 200}`, note: 'x'.repeat(400) } }],
      }),
    })),
  }
}

/** Inserts a week of the account's refusals into refusals_by_minute and refused_samples. */
export async function fillRefusals(ch: ClickHouseClient, database: string, accountId: string, nowMs: number) {
  const counts: object[] = []
  const samples: object[] = []
  for (let m = 0; m < WEEK_MINUTES; m++) {
    const rows = refusalRows(refusalsRecord(accountId, nowMs, m))
    counts.push(...rows.counts)
    samples.push(...rows.samples)
  }
  for (const [table, rows] of [
    ['refusals_by_minute', counts],
    ['refused_samples', samples],
  ] as const)
    for (let i = 0; i < rows.length; i += CHUNK)
      await ch.insert({ table: `${database}.${table}`, values: rows.slice(i, i + CHUNK), format: 'JSONEachRow' })
}
