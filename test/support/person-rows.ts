// Rows for the tests of the reads that count persons (funnels, retention: U15, U18 of docs/design.md):
// events of one live account written straight into a test database, and an anonymous id linked to a
// known one (identity_links, H50). On a cluster (A10) events go through the Distributed table and wait
// for every shard (the projector's insert settings); a link, which has no sharding key, goes into the
// first server's local table, as the materialized view of an event landing there would write it.
import type { ClickHouseClient } from '@clickhouse/client'
import { CLUSTER_INSERT_SETTINGS } from '../../services/projector/src/clickhouse/writer.js'

export function personRows(client: ClickHouseClient, database: string, opts: { cluster?: boolean } = {}) {
  const settings = opts.cluster ? { clickhouse_settings: CLUSTER_INSERT_SETTINGS } : {}
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
  const insert = (values: object[]) =>
    client.insert({ table: `${database}.events`, values, format: 'JSONEachRow', ...settings })
  const link = (account_id: string, anonymous_id: string, user_id: string, when: Date) =>
    client.insert({
      table: `${database}.identity_links${opts.cluster ? '_local' : ''}`,
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
