// A15: the sealer stores each new data key before any record sealed with it may be appended, shares a
// key on its way between requests, and never seals with a key whose write failed.
import t from 'tap'
import type { EventRecord } from '../../../../schemas/records.js'
import { decryptRecord, unwrapDataKey } from '../../../shared/src/privacy/crypto/index.js'
import { makeEvent } from '../../../../test/support/clickhouse-helpers.js'
import { RecordSealer, type SealInput, type WrappedKey } from './record-sealer.js'

const master = Buffer.alloc(32, 9)
const MARK = 'mark-5c1e'
const ev = (user: string, at = Date.UTC(2026, 10, 26)): SealInput => ({
  kind: 'event',
  record: makeEvent({
    account_id: 'acme',
    user_id: user,
    user_email: `${MARK}@x.example`,
    properties: JSON.stringify({ note: MARK }),
    received_at: at,
  }),
})

/** A keys topic in memory whose writes resolve when the test says so. */
function keysTopic() {
  const stored = new Map<string, Buffer>()
  const pending: Array<{ keys: WrappedKey[]; ok: () => void; fail: (e: Error) => void }> = []
  const write = (keys: WrappedKey[]) =>
    new Promise<void>((resolve, reject) => {
      pending.push({
        keys,
        ok: () => {
          for (const k of keys) stored.set(k.id, k.wrapped)
          resolve()
        },
        fail: reject,
      })
    })
  const keyFor = (id: string) => {
    const w = stored.get(id)
    return w && unwrapDataKey(master, id, w)
  }
  return { stored, pending, write, keyFor }
}

const settle = () => new Promise((r) => setImmediate(r))

t.test('a new person-month: its key is stored first, then the record is sealed under a pseudonym', async (t) => {
  const topic = keysTopic()
  const sealer = new RecordSealer(master, topic.write, 100)
  let done = false
  const p = sealer.seal<EventRecord>([ev(`${MARK}-user`), ev(`${MARK}-user`)]).then((r) => ((done = true), r))
  await settle()
  t.equal(topic.pending.length, 1, 'one write for the request')
  t.equal(topic.pending[0]!.keys.length, 1, 'one key for one person and month')
  t.notOk(done, 'nothing to append before the key is stored')
  topic.pending[0]!.ok()
  const out = await p
  for (const { key, record } of out) {
    t.notMatch(key, MARK, 'the Kafka key holds no user id')
    t.match(key.split('\u0000'), ['acme', /^[0-9a-f]{32}$/])
    t.notMatch(JSON.stringify(record), MARK, 'no personal field in clear')
    t.match(record.enc!.key_id.split('\u0000'), ['acme', /^[0-9a-f]{32}$/, '2026-11', /^s[0-9a-f]{8}$/])
    const opened = decryptRecord('event', record as never, topic.keyFor) as unknown as EventRecord
    t.equal(opened.user_id, `${MARK}-user`)
    t.equal(opened.user_email, `${MARK}@x.example`)
  }
  t.equal(out[0]!.key, out[1]!.key, 'one person, one partition key')
})

t.test('a second request for the person waits for the key on its way, and mints nothing', async (t) => {
  const topic = keysTopic()
  const sealer = new RecordSealer(master, topic.write, 100)
  const first = sealer.seal([ev('u1')])
  let secondDone = false
  const second = sealer.seal([ev('u1')]).then(() => (secondDone = true))
  await settle()
  t.equal(topic.pending.length, 1)
  t.notOk(secondDone, "the second request waits for the first one's key write")
  topic.pending[0]!.ok()
  await Promise.all([first, second])
  t.equal(topic.stored.size, 1)
  const third = sealer.seal([ev('u1', Date.UTC(2026, 11, 1))])
  await settle()
  t.equal(topic.pending.length, 2, 'a new month: a new key')
  topic.pending[1]!.ok()
  await third
})

t.test('a key write that fails: the request fails, and the next one mints and stores a new key', async (t) => {
  const topic = keysTopic()
  const sealer = new RecordSealer(master, topic.write, 100)
  const first = sealer.seal([ev('u2')])
  await settle()
  topic.pending[0]!.fail(new Error('broker away'))
  await t.rejects(first, /broker away/)
  t.equal(sealer.sealNow([ev('u2')]), undefined, 'A20: nor does sealNow seal with the key')
  const second = sealer.seal<EventRecord>([ev('u2')])
  await settle()
  t.equal(topic.pending.length, 2, 'minted again')
  topic.pending[1]!.ok()
  const [r] = await second
  t.ok(topic.keyFor(r!.record.enc!.key_id), 'sealed with the stored key')
})

t.test('a key evicted from the cache is not looked up: a new key, a new key id, both readable', async (t) => {
  const topic = keysTopic()
  const sealer = new RecordSealer(master, topic.write, 1)
  const go = async (u: string) => {
    const p = sealer.seal<EventRecord>([ev(u)])
    await settle()
    topic.pending.at(-1)!.ok()
    return (await p)[0]!.record.enc!.key_id
  }
  const a = await go('u3')
  await go('u4')
  const b = await go('u3')
  t.not(a, b)
  t.equal(a.slice(0, a.lastIndexOf('\u0000')), b.slice(0, b.lastIndexOf('\u0000')), 'same person-month prefix')
})

t.test('A20: sealNow seals only once every key is stored, synchronously, and the records open', async (t) => {
  const topic = keysTopic()
  const sealer = new RecordSealer(master, topic.write, 100)
  t.equal(sealer.sealNow([ev('u5')]), undefined, 'a person not seen yet: the caller takes seal')
  t.equal(topic.pending.length, 0, 'sealNow mints nothing')
  const first = sealer.seal<EventRecord>([ev('u5')])
  await settle()
  t.equal(sealer.sealNow([ev('u5')]), undefined, 'the key is on its way: not yet')
  topic.pending[0]!.ok()
  await first
  const now = sealer.sealNow<EventRecord>([ev('u5'), ev('u6')])
  t.equal(now, undefined, 'one person of the request without a key is enough to wait')
  const later = sealer.seal<EventRecord>([ev('u6')])
  await settle()
  topic.pending[1]!.ok()
  await later
  const out = sealer.sealNow<EventRecord>([ev('u5'), ev('u5'), ev('u6'), ev('u5')])
  t.ok(Array.isArray(out), 'no promise: sealed in this call')
  t.equal(topic.pending.length, 2, 'nothing more minted')
  t.equal(out![0]!.key, out![3]!.key)
  t.not(out![0]!.key, out![2]!.key)
  t.same(
    out!.map(({ record }) => (decryptRecord('event', record as never, topic.keyFor) as unknown as EventRecord).user_id),
    ['u5', 'u5', 'u6', 'u5'],
  )
  t.equal(sealer.sealNow([ev('u5', Date.UTC(2026, 11, 1))]), undefined, 'a new month needs a new key')
})

t.test('A20: a batch of one person, sealed with one update of its stream, opens record by record', async (t) => {
  const topic = keysTopic()
  const sealer = new RecordSealer(master, topic.write, 100)
  const batch = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const e = ev('u8')
      ;(e.record as EventRecord).properties = JSON.stringify({ i, text: 'ü€😀'.repeat(i) })
      return e
    })
  const p = sealer.seal<EventRecord>(batch(3))
  await settle()
  topic.pending[0]!.ok()
  const out = [...(await p), ...sealer.sealNow<EventRecord>(batch(5))!]
  t.same(
    out.map(
      ({ record }) =>
        JSON.parse((decryptRecord('event', record as never, topic.keyFor) as unknown as EventRecord).properties).i,
    ),
    [0, 1, 2, 0, 1, 2, 3, 4],
  )
  t.equal(new Set(out.map((o) => o.record.enc!.key_id)).size, 1, 'one key')
})
