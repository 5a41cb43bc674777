import { createClient } from '@clickhouse/client'
import { accountUsage } from './services/shared/src/usage/usage-query.js'
const c = createClient({ url: 'http://127.0.0.1:18123' })
for (let i = 0; i < 6; i++) {
  const t0 = performance.now()
  const u = await accountUsage(c, 'usage_bench', 'bench-trends', '2026-11')
  console.log(u, Math.round(performance.now() - t0), 'ms')
  if (i % 2 === 1) await c.query({ query: 'SELECT count() FROM usage_bench.events FINAL', format: 'JSONEachRow' }).then((r) => r.json())
}
await c.close()
