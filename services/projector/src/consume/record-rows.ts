// How many ClickHouse rows a record makes in all tables: its events or identifies row, and one
// user_traits row per top-level trait key (H10). The projector's and the replay's memory bounds
// count these, not records (H40): one identify may carry thousands of trait keys (records written
// before ingest capped them), so a bound on records bounded nothing.
import type { PreparedRecord } from '../clickhouse/prepared.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'

const NEWLINE = 10

/** Rows of one record: counted in its built trait lines, or from its traits when its rows are not built yet. */
export function recordRows(p: PreparedRecord): number {
  if (p.traitChunk) return 1 + countLines(p.traitChunk, p.traitStart, p.traitEnd)
  if (p.rowChunk === null && p.record)
    return 1 + traitKeys('traits' in p.record ? p.record.traits : p.record.user_traits)
  return 1
}

export function batchRows(b: PreparedBatch): number {
  let n = 0
  for (const p of b.events) n += recordRows(p)
  for (const p of b.identifies) n += recordRows(p)
  return n
}

// Each trait row is one TabSeparated line; a newline inside a value is escaped (tsv.ts).
function countLines(chunk: Buffer, start: number, end: number): number {
  let n = 0
  for (let i = chunk.indexOf(NEWLINE, start); i !== -1 && i < end; i = chunk.indexOf(NEWLINE, i + 1)) n++
  return n
}

/** Top-level keys of a traits JSON text, as rows.ts maps them; 0 when it is not an object (that record fails when built). */
function traitKeys(json: string | null | undefined): number {
  if (!json) return 0
  try {
    const v: unknown = JSON.parse(json)
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).length : 0
  } catch {
    return 0
  }
}
