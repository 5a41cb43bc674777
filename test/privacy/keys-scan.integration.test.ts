// An erasure's read of the keys topic (services/shared/src/privacy/keys-scan.ts) keeps only the records it
// matches: the topic holds a record a person-month, millions at scale, and the erasure needs one person's.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { isolatedEnv } from '../support/harness.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createKafka, createProducer } from '../../services/shared/src/kafka/client.js'
import { createLogger } from '../../services/shared/src/log.js'
import { liveKeyIds, scanKeys } from '../../services/shared/src/privacy/keys-scan.js'

t.test('a scan for one person holds their records only, the same as the whole scan filtered', async (t) => {
  const suffix = randomBytes(5).toString('hex')
  const cfg = loadProjectorConfig(isolatedEnv(suffix))
  const kafka = createKafka({ ...cfg.kafka, clientId: `test-${suffix}` }, createLogger('error'))
  const topic = `test.${suffix}.keys`
  const admin = kafka.admin()
  await admin.connect()
  t.teardown(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
    await admin.disconnect()
  })
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
  const person = (p: number) => `acct\u0000${String(p).padStart(32, '0')}\u0000`
  // 300 people, two months each; the chosen one's first month's key is tombstoned.
  const messages = Array.from({ length: 600 }, (_, i) => ({
    key: `${person(i % 300)}2026-${10 + Math.floor(i / 300)}\u0000s${i}`,
    value: randomBytes(60) as Buffer | null,
  }))
  messages.push({ key: messages[42]!.key, value: null })
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  await producer.send({ topic, acks: -1, messages })
  await producer.disconnect()

  const all = await scanKeys(kafka, topic)
  const mine = await scanKeys(kafka, topic, person(42))
  t.equal(all.length, 601)
  t.same(
    mine,
    all.filter((e) => e.id.startsWith(person(42))),
    "the person's three records, in order, as the whole scan has them",
  )
  t.same(liveKeyIds(mine, person(42)), [messages[342]!.key], 'the key still live')
  const rule = await scanKeys(kafka, topic, (id) => id.includes('\u00002026-11\u0000'))
  t.equal(rule.length, 300, 'a rule keeps what it matches (a retention month)')
})
