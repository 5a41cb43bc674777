// Refused requests reach the refusals topic (H65, H66) through the real ingest service and Kafka:
// bad requests of a valid key become one record per account and drain, keyed by the account, with
// counts by code and key-free samples; a request of an unknown key reaches no account's record.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { Codec, createRegistry } from '../../schemas/codec.js'
import type { RefusalsRecord } from '../../schemas/records.js'

t.test('bad requests of a valid key reach the refusals topic for that account only, without the key', async (t) => {
  const s = await startServices(t, { projector: false, env: { REFUSALS_FLUSH_MS: '200' } })
  const dev = await s.createKey()
  const other = await s.createKey()
  for (let i = 0; i < 3; i++)
    t.equal((await s.post('/v1/event', { user: { id: 'u1' }, note: dev.key }, { key: dev.key })).status, 400)
  t.equal(
    (await s.post('/v1/event', '{not json', { key: dev.key, headers: { 'content-type': 'application/json' } })).status,
    400,
  )
  t.equal((await s.post('/v1/event', { user: { id: 'u1' } }, { key: 'svc_live_' + 'z'.repeat(40) })).status, 401)
  t.equal((await s.post('/v1/event', { event: 'fine', user: { id: 'u2' } }, { key: other.key })).status, 200)

  const codec = new Codec(createRegistry(s.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'))
  await codec.register(s.topics)
  const consumer = s.kafka.consumer({ groupId: `refusals-reader-${s.suffix}`, maxWaitTimeInMs: 200 })
  await consumer.connect()
  t.teardown(() => consumer.disconnect())
  await consumer.subscribe({ topic: s.topics.refusals!, fromBeginning: true })
  const got: Array<{ key: string; raw: Buffer; value: RefusalsRecord }> = []
  await consumer.run({
    eachMessage: async ({ message }) => {
      const d = await codec.decode(message.value!)
      got.push({ key: String(message.key), raw: message.value!, value: d.value as RefusalsRecord })
    },
  })
  const total = () => got.flatMap((g) => g.value.counts).reduce((n, c) => n + Number(c.count), 0)
  await waitUntil(() => total() >= 4, 30_000, 'four refusals counted')

  t.same([...new Set(got.map((g) => g.key))], [dev.accountId], 'only the refused account has records')
  const counts = new Map<string, number>()
  for (const c of got.flatMap((g) => g.value.counts)) counts.set(c.code, (counts.get(c.code) ?? 0) + Number(c.count))
  t.equal(total(), 4, 'the unknown key and the accepted request are not counted')
  t.equal(counts.get('INVALID_JSON'), 1)
  const samples = got.flatMap((g) => g.value.samples)
  t.equal(samples.length, 4)
  t.ok(
    samples.some((x) => x.body.includes('"user":{"id":"u1"}')),
    'the body is sampled',
  )
  for (const g of got) t.notOk(g.raw.includes(Buffer.from(dev.key)), 'no stored byte holds the key')
})
