// A row of the ClickHouse events table as the integration tests of the dashboard's reads insert it
// (JSONEachRow): the columns those reads use, every time given in epoch milliseconds.

export interface EventRowInput {
  event_id: string
  account_id: string
  event: string
  /** The event time. */
  ms: number
  /** Received at (the table's version column); the event time by default. */
  receivedMs?: number
  environment?: 'live' | 'test'
  user_id?: string
  properties?: object
}

export function eventRow(r: EventRowInput) {
  const received = r.receivedMs ?? r.ms
  return {
    event_id: r.event_id,
    account_id: r.account_id,
    environment: r.environment ?? 'live',
    event: r.event,
    user_id: r.user_id ?? '',
    timestamp: Math.floor(r.ms / 1000),
    timestamp_ms: r.ms,
    received_at: Math.floor(received / 1000),
    received_at_ms: received,
    properties: JSON.stringify(r.properties ?? {}),
  }
}
