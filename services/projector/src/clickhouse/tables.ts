// The tables the projector writes, and the one the H16 lookup reads (schemas/clickhouse/).
export const TABLES = {
  events: 'events',
  identifies: 'identifies',
  userTraits: 'user_traits',
  /** Written by materialized views, never by the writer: the ids the H16 lookup reads (006_retry_ids.sql). */
  retryIds: 'retry_ids',
} as const
