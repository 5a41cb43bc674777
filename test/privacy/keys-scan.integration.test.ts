// An erasure's read of the keys topic (services/shared/src/privacy/keys-scan.ts) keeps only the records it
// matches: the topic holds a record a person-month, millions at scale, and the erasure needs one person's.
// A batch of erasures (A31) tombstones all its people's keys from one read.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { liveKeyIds, scanKeys } from '../../services/shared/src/privacy/keys-scan.js'
import { KeysEraser } from '../../services/projector/src/privacy/keys-eraser.js'
import type { ErasureRecord } from '../../schemas/records.js'
import { ownKeysTopic } from './keys-topic.js'

t.test('a scan for one person holds their records only, the same as the whole scan filtered', async (t) => {
  const { kafka, topic } = await ownKeysTopic(t)
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

t.test('a batch of erasures tombstones every key of each person in one read, in sends the broker takes', async (t) => {
  const { cfg, kafka, topic } = await ownKeysTopic(t)
  const pseudonym = (p: number) => String(p).padStart(32, '0')
  const person = (p: number) => `acct\u0000${pseudonym(p)}\u0000`
  // Person 1 with 30,000 keys: their ids alone are over a megabyte, more than one send may carry (A31).
  const ids = [
    ...Array.from({ length: 30_000 }, (_, i) => `${person(1)}2026-11\u0000s${i}`),
    `${person(2)}2026-11\u0000s0`,
    `${person(3)}2026-11\u0000s0`,
  ]
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  for (let i = 0; i < ids.length; i += 2_000)
    await producer.send({
      topic,
      acks: -1,
      messages: ids.slice(i, i + 2_000).map((key) => ({ key, value: randomBytes(60) })),
    })
  const erasure = (p: number): ErasureRecord => ({
    erasure_id: `e${p}`,
    account_id: 'acct',
    user_id: '',
    pseudonym: pseudonym(p),
    requested_by: 'test',
    requested_at: Date.now(),
    suppress: false,
    projections_purged_at: Date.now(),
    history_unreadable_at: null,
    disk_gone_at: null,
    updated_at: Date.now(),
  })
  const eraser = new KeysEraser(kafka, producer, { topic, pseudonymKey: cfg.privacy.pseudonymKey, checkMs: 60_000 })
  const done = await eraser.tombstone([erasure(1), erasure(2)])
  t.same(
    done.map((d) => d.keys),
    [30_000, 1],
  )
  t.ok(done.every((d) => d.record.history_unreadable_at !== null))
  const after = await scanKeys(kafka, topic)
  t.same(liveKeyIds(after, person(1)), [], "every one of the first person's keys is tombstoned")
  t.same(liveKeyIds(after, person(2)), [])
  t.same(liveKeyIds(after, person(3)), [`${person(3)}2026-11\u0000s0`], 'a person not erased keeps their key')
})
