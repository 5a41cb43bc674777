import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client'
import type { CommonConfig } from './env.js'

/** Creates the ClickHouse client at the edge and checks the server answers (SELECT 1). */
export async function createClickHouse(cfg: CommonConfig['clickhouse']): Promise<ClickHouseClient> {
  const client = createClient({
    url: cfg.url,
    username: cfg.username,
    password: cfg.password,
    request_timeout: 60_000,
    max_open_connections: 16,
    keep_alive: { enabled: true },
    // Failures surface as typed errors to the caller, which logs them once; the client's own logger would repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  })
  try {
    await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((r) => r.json())
  } catch (err) {
    await client.close()
    throw Object.assign(new Error(`ClickHouse at ${cfg.url} did not answer SELECT 1: ${(err as Error).message}`, { cause: err }), {
      code: 'CLICKHOUSE_UNAVAILABLE',
    })
  }
  return client
}
