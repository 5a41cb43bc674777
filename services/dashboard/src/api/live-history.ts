// The Live page's history (decision U7): the account's last events by receipt, read so that its cost
// follows the rate of the account, not its size. The events table is sorted by (account,
// environment, event, timestamp), so a window of event time prunes to the granules of that window;
// the window widens (an hour, a day, a week) only while it holds fewer than `limit` events. No FINAL:
// the page shows each event id once, and a retried insert's duplicate is the same event.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, sql } from '../../../../schemas/clickhouse/sql.js'
import { parseJson, type EventRow, type Environment } from './queries.js'

const HOUR_MS = 3_600_000
/** Event-time windows tried in turn, newest first. */
export const HISTORY_WINDOWS_MS = [HOUR_MS, 24 * HOUR_MS, 7 * 24 * HOUR_MS]

export class LiveHistory {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
  ) {}

  private async window(accountId: string, from: number, limit: number): Promise<EventRow[]> {
    const rows = await (
      await this.ch.query({
        query: sql`SELECT event_id, environment, key_id, event, user_id, anonymous_id, user_email, timestamp_ms, received_at_ms, properties, context
FROM ${ident(this.database, 'events')}
WHERE account_id = ${accountId} AND timestamp >= toDateTime(${new Date(from)}, 'UTC')
ORDER BY received_at_ms DESC, event_id DESC
LIMIT 1 BY event_id
LIMIT ${limit}`,
        format: 'JSONEachRow',
      })
    ).json<Record<string, string>>()
    return rows.map((r) => ({
      event_id: r.event_id!,
      environment: r.environment as Environment,
      key_id: r.key_id!,
      event: r.event!,
      user_id: r.user_id!,
      anonymous_id: r.anonymous_id ?? '',
      user_email: r.user_email!,
      timestamp: new Date(Number(r.timestamp_ms)).toISOString(),
      received_at: new Date(Number(r.received_at_ms)).toISOString(),
      properties: parseJson(r.properties!),
      context: parseJson(r.context!),
    }))
  }

  /** The last `limit` events received (newest first) whose event time is within the last week. */
  async recent(accountId: string, limit: number, now: number): Promise<EventRow[]> {
    let rows: EventRow[] = []
    for (const span of HISTORY_WINDOWS_MS) {
      rows = await this.window(accountId, now - span, limit)
      if (rows.length >= limit) break
    }
    return rows
  }
}
