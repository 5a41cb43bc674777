// Reading ClickHouse server error codes portably. 18.16 answers
// "Code: 57, e.displayText() = DB::Exception: ..." with no "(TYPE_NAME)" marker, so the
// client's ClickHouseError parser does not recognise it and hands back a plain Error.

export const CH_ERRORS = {
  TABLE_ALREADY_EXISTS: 57,
  /** 18.16's answer to ADD COLUMN of a column the table has; current releases answer DUPLICATE_COLUMN. */
  ILLEGAL_COLUMN: 44,
  DUPLICATE_COLUMN: 15,
  UNKNOWN_TABLE: 60,
  SYNTAX_ERROR: 62,
  DATABASE_ALREADY_EXISTS: 82,
  UNKNOWN_DATABASE: 81,
  TOO_MANY_PARTS: 252,
  TOO_MANY_SIMULTANEOUS_QUERIES: 202,
  TIMEOUT_EXCEEDED: 159,
  MEMORY_LIMIT_EXCEEDED: 241,
  NETWORK_ERROR: 210,
  SOCKET_TIMEOUT: 209,
  CANNOT_PARSE_INPUT: 27,
  TYPE_MISMATCH: 53,
  NO_SUCH_COLUMN_IN_TABLE: 16,
  UNKNOWN_IDENTIFIER: 47,
  READONLY: 164,
  ACCESS_DENIED: 497,
  AUTHENTICATION_FAILED: 516,
  // A cluster's replication and quorum inserts (docs/design.md H45): a server, a replica or ZooKeeper is away.
  TABLE_IS_READ_ONLY: 242,
  ALL_CONNECTION_TRIES_FAILED: 279,
  TOO_FEW_LIVE_REPLICAS: 285,
  UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE: 286,
  UNKNOWN_STATUS_OF_INSERT: 319,
  NO_ZOOKEEPER: 225,
  KEEPER_EXCEPTION: 999,
} as const

/**
 * Whether the server refused an INSERT for spanning more partitions than
 * `max_partitions_per_insert_block` allows (24.x and later; 18.16 has no such limit). It shares code
 * 252 (TOO_MANY_PARTS) with the refusal of a table that has too many parts, which is the server
 * falling behind on merges: only the message tells them apart.
 */
export function isTooManyPartitionsPerInsert(err: unknown): boolean {
  return (
    serverErrorCode(err) === CH_ERRORS.TOO_MANY_PARTS &&
    err instanceof Error &&
    /too many partitions for single insert block/i.test(err.message)
  )
}

/** The numeric server error code in an error thrown by @clickhouse/client, if any. */
export function serverErrorCode(err: unknown): number | undefined {
  if (!(err instanceof Error)) return undefined
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code)
  const m = /\bCode: (\d+)/.exec(err.message)
  return m ? Number(m[1]) : undefined
}
