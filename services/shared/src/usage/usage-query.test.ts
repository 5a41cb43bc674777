import { readFileSync } from 'node:fs'
import t from 'tap'
import { raw } from '../../../../schemas/clickhouse/sql.js'
import { LEGACY_SHARD, usageCountsSql, usageShardSql } from './usage-query.js'

t.test("an id's shard is computed as migration 018's view computes it (H83)", async (t) => {
  const migration = readFileSync(
    new URL('../../../../schemas/clickhouse/018_usage_monthly_sharded.sql', import.meta.url),
    'utf8',
  )
  t.ok(migration.includes(`${usageShardSql('event_id')} AS shard`), usageShardSql('event_id'))
  t.ok(migration.includes(`${LEGACY_SHARD} AS shard`), 'the legacy states go to the legacy shard')
})

t.test('each shard is merged apart and summed; a month with the legacy shard is merged as one set', async (t) => {
  const q = usageCountsSql('db', raw("account_id = 'a'"), '')
  t.match(
    q,
    /if\(\(account_id, month\) IN \(SELECT account_id, month FROM db\.usage_monthly_sharded WHERE account_id = 'a' AND shard = 65535\), 65535, shard\) AS s/,
  )
  t.match(q, /GROUP BY environment, s\n\)\nGROUP BY environment$/)
  t.match(usageCountsSql('db', raw('1'), 'account_id, '), /^SELECT account_id, environment, sum\(events\)/)
})
