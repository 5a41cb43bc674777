// A refusals record (H65, H66) as rows of the two tables of migration 011 (pure). Each row carries
// the record's identity (instance_id, drained_at_ms), so a record projected twice (A5) makes the same
// rows again, which the ReplacingMergeTree collapses.
import type { RefusalsRecord } from '../../../../schemas/records.js'

export interface RefusalCountRow {
  account_id: string
  environment: string
  code: string
  endpoint: string
  /** Seconds since the epoch (the DateTime column). */
  minute: number
  count: number
  instance_id: string
  drained_at_ms: number
}

export interface RefusedSampleRow {
  account_id: string
  environment: string
  code: string
  endpoint: string
  at: number
  at_ms: number
  message: string
  body: string
  instance_id: string
  drained_at_ms: number
  seq: number
}

const seconds = (ms: number) => Math.floor(ms / 1000)

export function refusalRows(r: RefusalsRecord): { counts: RefusalCountRow[]; samples: RefusedSampleRow[] } {
  const id = { account_id: r.account_id, instance_id: r.instance_id, drained_at_ms: r.drained_at }
  return {
    counts: r.counts.map((c) => ({
      ...id,
      environment: c.environment,
      code: c.code,
      endpoint: c.endpoint,
      minute: seconds(c.minute),
      count: c.count,
    })),
    samples: r.samples.map((s, seq) => ({
      ...id,
      environment: s.environment,
      code: s.code,
      endpoint: s.endpoint,
      at: seconds(s.at),
      at_ms: s.at,
      message: s.message,
      body: s.body,
      seq,
    })),
  }
}
