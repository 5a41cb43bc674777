// H40: the projector's memory is bounded in rows (all tables, trait rows included), not records,
// under the worst identify traffic ingest accepts (100 identifies a batch, each with 100 trait keys
// of 255 characters, about 32 KB) and under the old records of 3,000 trait keys each that may sit on
// a topic written before ingest capped traits. Asserted on the projector's /metrics: no insert
// holds more than PROJECTOR_MAX_ROWS rows, and the rows waiting for their write stay within the
// back-pressure bound; every trait row is stored.
import t from 'tap'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { startServices, waitUntil } from '../support/harness.js'
import { makeIdentify } from '../support/clickhouse-helpers.js'

const MAX_ROWS = 5_000
const PARTITIONS = 3 // the harness's TOPIC_PARTITIONS
const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])

t.test('rows buffered and rows per insert stay bounded under trait-heavy identifies (H40)', async (t) => {
  const s = await startServices(t, { ingest: false, env: { PROJECTOR_MAX_ROWS: String(MAX_ROWS) } })
  const codec = s.projector!.deps.codec
  const account = `acct_${s.suffix}`
  const value = 'v'.repeat(50)
  // 100 keys of 255 characters with 50-character values: about 31 KB of traits.
  const capped = JSON.stringify(
    Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`.padEnd(255, 'x'), value])),
  )
  const old = JSON.stringify(Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`t${i}`, 0])))
  t.ok(capped.length < 32 * 1024 && old.length < 32 * 1024, 'each within the 32 KB item limit')
  const identify = (user: string, traits: string) => ({
    key: user,
    value: codec.encode(
      'Identify',
      makeIdentify({ account_id: account, user_id: user, traits, timestamp: Date.now(), received_at: Date.now() }),
    ),
  })

  const rssBefore = process.memoryUsage().rss
  const producer = createProducer(s.kafka)
  await producer.connect()
  t.teardown(() => producer.disconnect())
  await producer.send({
    topic: s.topics.identifies,
    acks: -1,
    messages: Array.from({ length: 20 }, (_, i) => identify(`old${i}`, old)),
  })
  for (let batch = 0; batch < 5; batch++) {
    await producer.send({
      topic: s.topics.identifies,
      acks: -1,
      messages: Array.from({ length: 100 }, (_, i) => identify(`u${batch}-${i}`, capped)),
    })
  }
  const expected = 20 * 3_000 + 500 * 100

  let peakRss = 0
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100)
  t.teardown(() => clearInterval(sampler))
  await waitUntil(
    async () => {
      const [row] = await s.query<{ n: string }>(
        `SELECT uniqExact(user_id, trait_key) AS n FROM ${s.database}.user_traits WHERE account_id = '${account}'`,
      )
      return Number(row?.n) >= expected
    },
    180_000,
    `${expected} trait rows`,
  )
  clearInterval(sampler)
  t.comment(
    `RSS of the test process (projector in-process): ${Math.round(rssBefore / 2 ** 20)} MiB before the load, peak ${Math.round(peakRss / 2 ** 20)} MiB while projecting`,
  )

  const text = await (await fetch(`${s.projectorUrl}/metrics`)).text()
  const insertPeak = metric(text, 'projector_insert_rows_peak')
  const pendingPeak = metric(text, 'projector_pending_rows_peak')
  t.comment(`largest insert ${insertPeak} rows, most rows pending ${pendingPeak}`)
  t.ok(insertPeak >= 3_001 && insertPeak <= MAX_ROWS, `no insert over PROJECTOR_MAX_ROWS rows (largest ${insertPeak})`)
  // Back-pressure waits above 2 x MAX_ROWS pending; each partition's handler may add one decoded
  // slice past that: under MAX_ROWS rows plus the record that reaches it (3,001 rows at most here).
  const bound = 2 * MAX_ROWS + PARTITIONS * (MAX_ROWS + 3_001)
  t.ok(pendingPeak > 0 && pendingPeak <= bound, `rows pending stay within ${bound} (peak ${pendingPeak})`)
  t.equal(metric(text, 'projector_dlq_records_total'), 0, 'nothing dead-lettered')
  const [stored] = await s.query<{ n: string }>(
    `SELECT count() AS n FROM ${s.database}.user_traits FINAL WHERE account_id = '${account}'`,
  )
  t.equal(Number(stored!.n), expected, 'every trait row stored once')
})
