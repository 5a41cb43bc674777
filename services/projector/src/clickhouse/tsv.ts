// Rows as TabSeparated text, the insert format of the projector and the replay (issue 10).
//
// Measured on 18.16 with 50,000 event rows over HTTP (BENCHMARKS.md, "Replay"): the server parses
// TabSeparated in about 3 µs a row against 5 for JSONEachRow, and building the text here costs a
// fraction of JSON.stringify per row, which was the largest single item of a replay's Node CPU.
//
// In TabSeparated a backslash starts an escape sequence and a tab or a newline ends the field or
// the row, so exactly those are escaped (and \r, so that no value can look like a CRLF line end).
// A string that is not well-formed UTF-16 (an unpaired surrogate) has no UTF-8 form: Node would
// write U+FFFD in its place and the server would store the changed text, so it is refused here and
// the record is dead-lettered with the reason (JSONEachRow had the server refuse it, code 25).
import { RowMappingError } from './rows.js'

const SPECIAL = /[\t\n\r\\]/
const SPECIAL_ALL = /[\t\n\r\\]/g
const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' }
const escapeOne = (c: string) => ESCAPES[c]!
// String.prototype.isWellFormed is in Node 20 (V8 11.3) but not in the ES2022 library types.
type WellFormedString = string & { isWellFormed(): boolean }

/** One field: numbers as they print, strings escaped. */
export function tsvField(v: string | number, eventId: string): string {
  if (typeof v === 'number') return String(v)
  if (!(v as WellFormedString).isWellFormed()) throw new RowMappingError('a text field holds an unpaired UTF-16 surrogate', eventId)
  return SPECIAL.test(v) ? v.replace(SPECIAL_ALL, escapeOne) : v
}

/**
 * One row's line (with its newline), its fields in the order of the row's own keys. Every row of
 * a table is built by one function in rows.ts, so they share that order; `columns` below names it.
 */
export function tsvLine(row: object, eventId: string): string {
  const values = Object.values(row) as Array<string | number>
  let line = tsvField(values[0]!, eventId)
  for (let i = 1; i < values.length; i++) line += '\t' + tsvField(values[i]!, eventId)
  return line + '\n'
}

/** The column list of an insert: the keys of the table's rows, in order. */
export const columnsOf = (row: object): string[] => Object.keys(row)

// V8 caps a string at about 512 MiB, and one insert may hold up to REPLAY_MAX_ROWS (1,000,000) rows
// of a few hundred bytes: lines are joined in chunks and streamed.
const LINES_PER_CHUNK = 5_000

/** Joins lines into chunks of text for a streamed insert body. */
export function tsvChunks(lines: string[]): string[] {
  const chunks: string[] = []
  for (let i = 0; i < lines.length; i += LINES_PER_CHUNK) chunks.push(lines.slice(i, i + LINES_PER_CHUNK).join(''))
  return chunks
}
