// Rows for the tests of the reads that count persons (funnels, retention: U15, U18 of docs/design.md):
// events of one live account written straight into a test database, and an anonymous id linked to a
// known one (identity_links, H50).
import type { ClickHouseClient } from '@clickhouse/client'

export function personRows(client: ClickHouseClient, database: string) {
  let n = 0
  const row = (account_id: string, user_id: string, event: string, when: Date, properties: object = {}) => {
    const ms = when.getTime()
    const s = Math.floor(ms / 1000)
    return {
      event_id: `e${n++}`,
      account_id,
      environment: 'live',
      event,
      user_id,
      timestamp: s,
      timestamp_ms: ms,
      received_at: s,
      received_at_ms: ms,
      properties: JSON.stringify(properties),
    }
  }
  const insert = (values: object[]) => client.insert({ table: `${database}.events`, values, format: 'JSONEachRow' })
  const link = (account_id: string, anonymous_id: string, user_id: string, when: Date) =>
    client.insert({
      table: `${database}.identity_links`,
      values: [
        {
          account_id,
          environment: 'live',
          anonymous_id,
          user_id,
          linked_at: Math.floor(when.getTime() / 1000),
          linked_at_ms: when.getTime(),
          source_event_id: '',
        },
      ],
      format: 'JSONEachRow',
    })
  return { row, insert, link }
}
