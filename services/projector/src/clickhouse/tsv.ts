// Rows as TabSeparated text, the insert format of the projector and the replay (bench/HISTORY.md).
//
// Measured on 18.16 with 50,000 event rows over HTTP (bench/HISTORY.md, "Replay"): the server parses
// TabSeparated faster than JSONEachRow, and building a row's line here costs less than the
// client's JSON.stringify of it, which was the largest single item of a replay's Node CPU.
//
// In TabSeparated a backslash starts an escape sequence and a tab or a newline ends the field or
// the row, so exactly those are escaped (and \r, so that no value can look like a CRLF line end).
// A string that is not well-formed UTF-16 (an unpaired surrogate) has no UTF-8 form: Node would
// write U+FFFD in its place and the server would store the changed text, so it is refused here and
// the record is dead-lettered with the reason (JSONEachRow had the server refuse it, code 25).
import { isWellFormed } from '../../../shared/src/well-formed.js'
import { RowMappingError, type RowValues } from './rows.js'

const SPECIAL = /[\t\n\r\\]/
const SPECIAL_ALL = /[\t\n\r\\]/g
const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' }
const escapeOne = (c: string) => ESCAPES[c]!

/**
 * A row's TabSeparated line, newline included. Throws RowMappingError when a value cannot be
 * written, so the writer can check all of a record's rows before it appends any: a record is
 * whole or invalid. `columns` only names a column in that error.
 */
export function tsvLine(values: RowValues, columns: readonly string[], eventId: string): string {
  let line = ''
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    let text: string
    if (typeof v === 'number') text = '' + v
    else if (typeof v !== 'string') {
      // JSONEachRow left such a column to its default; TSV would write "undefined" or "null".
      throw new RowMappingError(`column ${columns[i]} has no value`, eventId)
    } else {
      if (!isWellFormed(v)) throw new RowMappingError('a text field holds an unpaired UTF-16 surrogate', eventId)
      text = SPECIAL.test(v) ? v.replace(SPECIAL_ALL, escapeOne) : v
    }
    line = i === 0 ? text : line + '\t' + text
  }
  return line + '\n'
}

// Rows are written into Buffers of CHUNK_BYTES (outside the JS heap) rather than kept as strings:
// a replay holds tens of thousands of rows until their insert, and as strings they were copied by
// every young-generation GC and then promoted (bench/HISTORY.md: GC was a quarter of the replay's CPU).
// A row never spans two chunks; a row larger than a chunk gets a chunk of its own.
const CHUNK_BYTES = 1 << 20

/**
 * Append-only TabSeparated bytes. Each append says where its bytes start in `chunk`; they end at
 * `pos` after it. A chunk is never written again once a later one is started, and lives as long
 * as a row in it is referenced.
 */
export class RowArena {
  chunk: Buffer | null = null
  pos = 0

  constructor(private readonly chunkBytes = CHUNK_BYTES) {}

  /** Makes room for `bytes` more in `chunk` (a new chunk when they do not fit); returns where they start. */
  reserve(bytes: number): number {
    if (this.chunk === null || this.pos + bytes > this.chunk.length) {
      this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes))
      this.pos = 0
    }
    return this.pos
  }

  /** Appends lines from tsvLine (one or more rows); returns their start in `chunk`. */
  append(lines: string): number {
    // A UTF-16 code unit is at most 3 UTF-8 bytes.
    const bound = lines.length * 3
    if (this.chunk === null || this.pos + bound > this.chunk.length) {
      this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, bound))
      this.pos = 0
    }
    const start = this.pos
    this.pos += this.chunk.write(lines, start)
    return start
  }
}
