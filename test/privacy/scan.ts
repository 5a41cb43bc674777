// Test helper for the privacy tests: every table and view of a database, read whole (and FINAL
// where the engine has it), searched for a marker string. What any query could return is in there.
import type { ClickHouseClient } from '@clickhouse/client'

export interface MarkerHit {
  table: string
  final: boolean
  rows: number
}

export async function scanForMarker(ch: ClickHouseClient, database: string, marker: string): Promise<MarkerHit[]> {
  const tables = await (
    await ch.query({
      query: `SELECT name, engine FROM system.tables WHERE database = '${database}' AND engine NOT LIKE '%MaterializedView%' ORDER BY name`,
      format: 'JSONEachRow',
    })
  ).json<{ name: string; engine: string }>()
  const hits: MarkerHit[] = []
  for (const t of tables) {
    for (const final of t.engine.includes('ReplacingMergeTree') ? [false, true] : [false]) {
      const text = await (
        await ch.query({ query: `SELECT * FROM ${database}.${t.name}${final ? ' FINAL' : ''}`, format: 'JSONEachRow' })
      ).text()
      const rows = text.split('\n').filter((l) => l.includes(marker)).length
      if (rows > 0) hits.push({ table: t.name, final, rows })
    }
  }
  return hits
}
