// A34: the live projector reads the keys topic's recent part first (the keys of this month's and last
// month's records), starts projecting, and reads the older part in the background. On the real broker: the
// split found by the keys' timestamps, what is held when start() resolves, and that an older entry never
// shadows or brings back a newer one once the older part is read.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { createProducer, type Kafka } from '../../services/shared/src/kafka/client.js'
import { createLogger } from '../../services/shared/src/log.js'
import {
  dataKeyId,
  encryptPersonalFields,
  MasterKeyRing,
  wrapDataKey,
} from '../../services/shared/src/privacy/crypto/index.js'
import { KeysFollower, recentKeysSince } from '../../services/projector/src/privacy/keys-holder.js'
import { RecordOpener } from '../../services/projector/src/privacy/record-opener.js'
import { makeEvent } from '../support/clickhouse-helpers.js'
import { ownKeysTopic } from './keys-topic.js'

const master = randomBytes(32)
const OLD = Date.UTC(2025, 0, 15)
const idOf = (name: string) => `${dataKeyId('acct', name.padEnd(32, '0'), '2025-01')}\u0000s${name}`

async function write(kafka: Kafka, topic: string, entries: Array<[string, Buffer | null, number]>): Promise<void> {
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  await producer.send({
    topic,
    acks: -1,
    messages: entries.map(([id, key, at]) => ({
      key: id,
      value: key === null ? null : wrapDataKey(master, id, key),
      timestamp: String(at),
    })),
  })
  await producer.disconnect()
}

function follower(t: Test, kafka: Kafka, topic: string): KeysFollower {
  const f = new KeysFollower(kafka, topic, new MasterKeyRing(master), createLogger('error'), 100, {
    recentSince: recentKeysSince(Date.now()),
  })
  t.teardown(() => f.stop())
  return f
}

t.test('start() holds the recent keys; the older ones follow without shadowing a newer entry', async (t) => {
  const { kafka, topic } = await ownKeysTopic(t)
  const [a, c, x1, x2, r, o] = Array.from({ length: 6 }, () => randomBytes(32))
  // A key of the GCM format (A13: its generation without the stream mark), to seal a record with alone.
  const oldRecordKey = `${dataKeyId('acct', 'o'.padEnd(32, '0'), '2025-01')}\u00000badc0de`
  const now = Date.now()
  // Offsets 0-2 written in January 2025, 3-5 now: a new key, a new value of offset 2's id, and the
  // tombstone of offset 1's.
  await write(kafka, topic, [
    [idOf('a'), a, OLD],
    [idOf('c'), c, OLD],
    [idOf('x'), x1, OLD],
    [oldRecordKey, o, OLD],
    [idOf('r'), r, now],
    [idOf('x'), x2, now],
    [idOf('c'), null, now],
  ])
  const keys = follower(t, kafka, topic)
  await keys.start()
  t.same(keys.holder.keyFor(idOf('r')), r, 'a recent key is held when start() resolves')
  t.same(keys.holder.keyFor(idOf('x')), x2, "and a recent value of an older key's id")
  t.equal(keys.holder.keyFor(idOf('a')), undefined, 'an older key is not read yet')
  t.equal(keys.holder.readingOlder, true, 'projector_data_keys_older_reading would say 1')
  // A record of January 2025 met now, as the decode step meets it: its key is a miss, which waits for the
  // older keys and opens, instead of reading as a gone key (no row written).
  const sealed = encryptPersonalFields(
    'event',
    makeEvent({ user_id: 'ada' }) as never,
    { id: oldRecordKey, bytes: o },
    'p',
  )
  const opened = await new RecordOpener(keys.holder).open({ name: 'Event', schemaId: 1, value: sealed })
  t.equal((opened as { value?: { user_id?: string } }).value?.user_id, 'ada', 'a record sealed with an older key opens')
  await keys.holder.caughtUp()
  t.equal(keys.holder.readingOlder, false, 'and 0 once the older keys are read')
  t.same(keys.holder.keyFor(idOf('a')), a, 'caughtUp() waits for the older part: its key is held')
  t.same(keys.holder.keyFor(idOf('x')), x2, 'the older value does not shadow the recent one')
  t.equal(keys.holder.keyFor(idOf('c')), undefined, 'a key tombstoned in the recent part stays gone')
  t.equal(keys.holder.size, 4)
})

t.test('a topic with no recent key, and one with only recent keys, are read whole', async (t) => {
  for (const at of [OLD, Date.now()]) {
    const { kafka, topic } = await ownKeysTopic(t)
    const [a, b] = [randomBytes(32), randomBytes(32)]
    await write(kafka, topic, [
      [idOf('a'), a, at],
      [idOf('b'), b, at],
      [idOf('b'), null, at],
    ])
    const keys = follower(t, kafka, topic)
    await keys.start()
    await keys.holder.caughtUp()
    t.same(keys.holder.keyFor(idOf('a')), a, `written ${new Date(at).toISOString()}: the key is held`)
    t.equal(keys.holder.keyFor(idOf('b')), undefined, 'the tombstoned one is not')
  }
})
