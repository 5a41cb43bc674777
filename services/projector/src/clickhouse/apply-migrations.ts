// Applies the ClickHouse migrations through a client of their own, whose requests may run as long as
// a migration's backfill takes (MIGRATION_TIMEOUT_MS); the service's own client keeps its short
// timeout for inserts and lookups.
import { migrate, type MigrateResult } from '../../../../schemas/clickhouse/migrate.js'
import { MIGRATION_TIMEOUT_MS, openClickHouse } from '../../../shared/src/clickhouse.js'
import type { CommonConfig } from '../../../shared/src/env.js'

export async function applyMigrations(
  cfg: CommonConfig['clickhouse'],
  database: string,
  log: (message: string) => void,
): Promise<MigrateResult> {
  const client = openClickHouse(cfg, { requestTimeoutMs: MIGRATION_TIMEOUT_MS })
  try {
    return await migrate(client, database, { log, cluster: cfg.cluster })
  } finally {
    await client.close()
  }
}
