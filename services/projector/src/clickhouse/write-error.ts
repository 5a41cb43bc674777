// The writer's typed failures (H27): each says whether a retry can help. A record that cannot be mapped to
// a row is INVALID_RECORD and names the records (dead-lettered by consume/projection-writer.ts); the
// server's refusals of the data itself are INSERT_REJECTED; anything else is INSERT_FAILED, retried.
import { isTooManyPartitionsPerInsert, serverErrorCode } from '../../../../schemas/clickhouse/server-error.js'
import { AppError } from '../../../shared/src/errors.js'

export type ClickHouseWriteErrorCode =
  | 'INVALID_RECORD' // a record cannot be mapped to a row: send it to the DLQ
  | 'INSERT_REJECTED' // the server refused the data itself (parse, type, an insert's partitions): not retriable
  | 'INSERT_FAILED' // network, overload, timeout, missing table...: retry with backoff

export interface InvalidRecord {
  kind: 'event' | 'identify'
  event_id: string
  reason: string
}

export class ClickHouseWriteError extends AppError {
  readonly code: ClickHouseWriteErrorCode
  readonly table: string | undefined
  readonly serverCode: number | undefined
  /** For INVALID_RECORD: the records that cannot be written. Nothing was inserted. */
  readonly invalid: InvalidRecord[]

  constructor(
    code: ClickHouseWriteErrorCode,
    message: string,
    opts: { retriable: boolean; table?: string; serverCode?: number; invalid?: InvalidRecord[]; cause?: unknown },
  ) {
    super(message, { retriable: opts.retriable, cause: opts.cause })
    this.code = code
    this.table = opts.table
    this.serverCode = opts.serverCode
    this.invalid = opts.invalid ?? []
  }
}

// Server codes that mean the data itself is unacceptable: retrying cannot help, so the records at
// fault go to the DLQ and the rest is written (H27). Names as current ClickHouse's system.errors gives
// them. Code 252 is one of them only for the partitions of one insert (isTooManyPartitionsPerInsert).
const DATA_ERRORS = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE (an unpaired surrogate in a JSON string)
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  130, // CANNOT_READ_ARRAY_FROM_TEXT
  131, // TOO_LARGE_STRING_SIZE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  376, // CANNOT_PARSE_UUID
  441, // CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING
  467, // CANNOT_PARSE_BOOL
  632, // UNEXPECTED_DATA_AFTER_PARSED_VALUE
  675, // CANNOT_PARSE_IPV4
  676, // CANNOT_PARSE_IPV6
  691, // UNKNOWN_ELEMENT_OF_ENUM (18.16 says LOGICAL_ERROR, which is not the data's)
])

/** The error of a write that found records it cannot map: nothing was inserted. */
export function invalidRecords(invalid: InvalidRecord[]): ClickHouseWriteError {
  return new ClickHouseWriteError(
    'INVALID_RECORD',
    `${invalid.length} record(s) cannot be written: ` +
      invalid.map((r) => `${r.kind} ${r.event_id}: ${r.reason}`).join('; '),
    { retriable: false, invalid },
  )
}

export function classify(cause: unknown, table?: string): ClickHouseWriteError {
  const serverCode = serverErrorCode(cause)
  const message = cause instanceof Error ? cause.message : String(cause)
  const where = table ? ` into ${table}` : ''
  if (serverCode !== undefined && (DATA_ERRORS.has(serverCode) || isTooManyPartitionsPerInsert(cause))) {
    return new ClickHouseWriteError('INSERT_REJECTED', `insert${where} rejected (code ${serverCode}): ${message}`, {
      retriable: false,
      table,
      serverCode,
      cause,
    })
  }
  // Programmer errors are never retried (STYLE.md).
  const programmer = cause instanceof TypeError || cause instanceof RangeError || cause instanceof SyntaxError
  return new ClickHouseWriteError('INSERT_FAILED', `insert${where} failed: ${message}`, {
    retriable: !programmer,
    table,
    serverCode,
    cause,
  })
}
