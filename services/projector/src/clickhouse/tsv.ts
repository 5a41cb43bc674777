// Rows as TabSeparated text, the insert format of the projector and the replay (issue 10).
//
// Measured on 18.16 with 50,000 event rows over HTTP (BENCHMARKS.md, "Replay"): the server parses
// TabSeparated in about 3 µs a row against 5 for JSONEachRow, and building a row's line here
// costs 3-5 µs against about 6 for the client's JSON.stringify of it, which was the largest single
// item of a replay's Node CPU.
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

/** A row that can be written: its values in column order and an upper bound of its bytes. */
export interface CheckedRow {
  row: object
  values: Array<string | number>
  bound: number
}

/**
 * Checks that a row can be written (throws RowMappingError otherwise), so a record's rows are all
 * checked before any is written: a record is whole or invalid.
 */
export function checkRow(row: object, eventId: string): CheckedRow {
  let bound = 1
  const values = Object.values(row) as unknown[]
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (typeof v === 'number') bound += 25
    else if (typeof v !== 'string') {
      // JSONEachRow left such a column to its default; TSV would write "undefined" or "null".
      throw new RowMappingError(`column ${Object.keys(row)[i]} has no value`, eventId)
    } else {
      if (!(v as WellFormedString).isWellFormed()) throw new RowMappingError('a text field holds an unpaired UTF-16 surrogate', eventId)
      // A UTF-16 code unit is at most 3 UTF-8 bytes; an escape doubles an ASCII byte.
      bound += v.length * 3 + 1
    }
  }
  return { row, values: values as Array<string | number>, bound }
}

// Rows are written straight into Buffers of CHUNK_BYTES (outside the JS heap) rather than joined
// as strings: a replay holds tens of thousands of rows until their insert, and as strings they were
// copied by every young-generation GC and then promoted (issue 10: GC was a quarter of the replay's
// CPU). A row never spans two chunks; a row larger than a chunk gets a chunk of its own.
const CHUNK_BYTES = 1 << 20

/** One table's rows as TabSeparated bytes, with the column list of the insert. */
export class TsvRows {
  /** The keys of the rows, in order: every row of a table is built by one function in rows.ts. */
  columns: string[] = []
  rows = 0
  private readonly full: Buffer[] = []
  private buf: Buffer | null = null
  private pos = 0

  /** Appends a row that checkRow passed. */
  add({ row, values, bound }: CheckedRow): void {
    if (this.rows === 0) this.columns = Object.keys(row)
    if (!this.buf || this.pos + bound > this.buf.length) {
      if (this.buf) this.full.push(this.buf.subarray(0, this.pos))
      this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bound))
      this.pos = 0
    }
    // One native write per row: a write per field, or a JS loop copying the characters, cost two
    // to three times as much (issue 10, measured on replay rows).
    let line = ''
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!
      const text = typeof v === 'number' ? String(v) : SPECIAL.test(v) ? v.replace(SPECIAL_ALL, escapeOne) : v
      line += i === 0 ? text : '\t' + text
    }
    this.pos += this.buf.write(line + '\n', this.pos)
    this.rows++
  }

  /** The bytes written so far, for a streamed insert body. */
  chunks(): Buffer[] {
    return this.buf && this.pos > 0 ? [...this.full, this.buf.subarray(0, this.pos)] : [...this.full]
  }
}
