import t from 'tap'
import { randomBytes } from 'node:crypto'
import {
  dataKeyId,
  KeyStream,
  MasterKeyRing,
  openStream,
  wrapDataKey,
} from '../../../shared/src/privacy/crypto/index.js'
import { KeyTable } from './key-table.js'
import { KeysHolder, KeyUnwrapError, recentKeysSince } from './keys-holder.js'
import { RecentKeys, replayOpenEntries } from './recent-keys.js'
import { loadProjectorConfig } from '../config.js'
import { ConfigError } from '../../../shared/src/env.js'

const master = randomBytes(32)
const idOf = (i: number) => `${dataKeyId('acc', `p${i}`, '2026-11')}\u0000${i.toString(16)}`

t.test('the table holds, replaces and forgets keys through growth and deletions', async (t) => {
  const table = new KeyTable()
  const keys = new Map<string, Buffer>()
  for (let i = 0; i < 5000; i++) {
    const k = randomBytes(32)
    keys.set(idOf(i), k)
    table.set(idOf(i), k)
  }
  // Every third key deleted: runs of linear probing are closed up behind each hole.
  let deleted = 0
  for (let i = 0; i < 5000; i += 3) if (table.delete(idOf(i)) && keys.delete(idOf(i))) deleted++
  t.equal(deleted, 1667, 'each stored key deleted once')
  const replaced = randomBytes(32)
  table.set(idOf(1), replaced)
  keys.set(idOf(1), replaced)
  t.equal(table.size, keys.size, 'size counts held keys once')
  let wrong = 0
  for (let i = 0; i < 5000; i++) {
    const want = keys.get(idOf(i))
    const got = table.get(idOf(i))
    if (want === undefined ? got !== undefined : got === undefined || !got.equals(want)) wrong++
  }
  t.equal(wrong, 0, 'every held key found with its bytes, every deleted one absent')
  t.equal(table.get('never stored'), undefined)
  t.equal(table.delete('never stored'), false)
})

t.test('the table refuses a key that is not 32 bytes', async (t) => {
  t.throws(() => new KeyTable().set('x', Buffer.alloc(16)), RangeError)
})

const entry = (id: string, key: Buffer | null, offset: number) => ({
  id,
  wrapped: key === null ? null : wrapDataKey(master, id, key),
  offset: BigInt(offset),
})

t.test('the holder unwraps keys, forgets tombstoned ones, and waits for the topic end on a miss', async (t) => {
  let end = 2n
  const holder = new KeysHolder(new MasterKeyRing(master), async () => end, 100)
  const k0 = randomBytes(32)
  const k1 = randomBytes(32)
  holder.apply([entry(idOf(0), k0, 0), entry(idOf(1), k1, 1)], 2n)
  t.same(holder.keyFor(idOf(0)), k0, 'an unwrapped key is held')
  await holder.caughtUp()
  // A key written after the record was seen by nobody yet: caughtUp waits until it has been read.
  end = 4n
  let done = false
  const waiting = holder.caughtUp().then(() => (done = true))
  await new Promise((r) => setImmediate(r))
  t.equal(done, false, 'not caught up before the end offset is read')
  holder.apply([entry(idOf(2), randomBytes(32), 2)], 3n)
  await new Promise((r) => setImmediate(r))
  t.equal(done, false, 'still one record short')
  holder.apply([entry(idOf(1), null, 3)], 4n)
  await waiting
  t.equal(done, true)
  t.equal(holder.keyFor(idOf(1)), undefined, 'a tombstone removes the key')
  t.ok(holder.keyFor(idOf(2)), 'the key read while waiting is held')
  t.equal(holder.size, 2)
})

t.test('A34: read from a recent offset first, the older entries never shadow or bring back a newer one', async (t) => {
  // The topic: offsets 0-3 older (a key, a key later tombstoned, a first value, a key later re-read and
  // opened), 4-6 recent (a new key, the id of offset 2 given a new value, the tombstone of offset 1).
  const [a, b, x1, x2, r, o] = Array.from({ length: 6 }, () => randomBytes(32))
  const holder = new KeysHolder(new MasterKeyRing(master), async () => 7n, 100)
  holder.startAt(4n)
  holder.apply([entry(idOf(9), r, 4), entry(idOf(2), x2, 5), entry(idOf(1), null, 6)], 7n)
  await holder.recentCaughtUp()
  t.same(holder.keyFor(idOf(9)), r, 'a recent key is held once the recent part is read')
  t.same(holder.keyFor(idOf(2)), x2, "an id's newer value")
  t.equal(holder.keyFor(idOf(0)), undefined, 'an older key is not held yet')
  t.equal(holder.readingOlder, true, 'the older part is being read')
  let all = false
  const waiting = holder.caughtUp().then(() => (all = true))
  await new Promise((r) => setImmediate(r))
  t.equal(all, false, 'caughtUp waits for the older part')
  holder.applyOlder([entry(idOf(0), a, 0), entry(idOf(1), b, 1), entry(idOf(2), x1, 2), entry(idOf(3), o, 3)])
  const opened = holder.keyFor(idOf(3))
  holder.applyOlder([entry(idOf(3), null, 3), entry(idOf(9), randomBytes(32), 4)])
  holder.olderRead()
  await waiting
  t.equal(all, true, 'caught up once the older part is read')
  t.equal(holder.readingOlder, false)
  t.same(holder.keyFor(idOf(0)), a, 'an older key is held')
  t.equal(holder.keyFor(idOf(1)), undefined, 'a key tombstoned in the recent part is not brought back')
  t.same(holder.keyFor(idOf(2)), x2, 'an older value does not shadow the newer one')
  t.same(holder.keyFor(idOf(9)), r, 'an entry at or past the split is not applied twice')
  t.equal(holder.keyFor(idOf(3)), undefined, 'an older tombstone removes an older key')
  t.ok(opened?.equals(Buffer.alloc(32)), 'and zeroes its opened copy (A27)')
  t.equal(holder.size, 3)
})

t.test('A34: the recent part starts a day before the previous UTC month', async (t) => {
  t.equal(new Date(recentKeysSince(Date.UTC(2026, 11, 5, 21, 0))).toISOString(), '2026-10-31T00:00:00.000Z')
  t.equal(new Date(recentKeysSince(Date.UTC(2026, 0, 1, 0, 0))).toISOString(), '2025-11-30T00:00:00.000Z')
})

t.test('a key the master key does not open stops the holder instead of reading as gone', async (t) => {
  const holder = new KeysHolder(new MasterKeyRing(master), async () => 1n, 100)
  const other = randomBytes(32)
  holder.apply([{ id: idOf(0), wrapped: wrapDataKey(other, idOf(0), randomBytes(32)), offset: 0n }], 1n)
  await t.rejects(holder.caughtUp(), KeyUnwrapError)
})

t.test("A35: a value no master opens stops the holder only if it is still its id's latest at the end", async (t) => {
  const retired = randomBytes(32)
  const k0 = randomBytes(32)
  const rotated = new KeysHolder(new MasterKeyRing(master), async () => 3n, 100)
  rotated.apply(
    [
      { id: idOf(0), wrapped: wrapDataKey(retired, idOf(0), k0), offset: 0n },
      { id: idOf(1), wrapped: wrapDataKey(retired, idOf(1), randomBytes(32)), offset: 1n },
    ],
    2n,
  )
  rotated.apply([{ id: idOf(0), wrapped: wrapDataKey(master, idOf(0), k0), offset: 2n }, entry(idOf(1), null, 3)], 4n)
  await rotated.caughtUp()
  t.same(rotated.keyFor(idOf(0)), k0, 'the re-wrapped copy after the old one is served')
  t.equal(rotated.keyFor(idOf(1)), undefined, 'a tombstone after the old copy: gone, as an erased key is')

  const left = new KeysHolder(new MasterKeyRing(master), async () => 2n, 100)
  left.apply(
    [entry(idOf(0), randomBytes(32), 0), { id: idOf(0), wrapped: wrapDataKey(retired, idOf(0), k0), offset: 1n }],
    2n,
  )
  t.equal(left.keyFor(idOf(0)), undefined, 'the earlier value is not served in place of the latest')
  await t.rejects(left.caughtUp(), KeyUnwrapError, 'the latest copy opens with no master given: stopped')

  // Three old copies, each replaced by a copy that opens: within the bound that reads; past it, it stops.
  const copies = [0, 1, 2].map((i) => ({ id: idOf(i), wrapped: wrapDataKey(retired, idOf(i), k0), offset: BigInt(i) }))
  const rewrapped = [0, 1, 2].map((i) => entry(idOf(i), k0, 3 + i))
  const within = new KeysHolder(new MasterKeyRing(master), async () => 6n, 100, { maxUnopened: 3 })
  within.apply(copies, 3n)
  within.apply(rewrapped, 6n)
  await within.caughtUp()
  t.same(within.keyFor(idOf(2)), k0, 'as many old copies as the bound: each replaced, read')
  const bounded = new KeysHolder(new MasterKeyRing(master), async () => 6n, 100, { maxUnopened: 2 })
  bounded.apply(copies, 3n)
  bounded.apply(rewrapped, 6n)
  await t.rejects(bounded.caughtUp(), KeyUnwrapError, 'one more than the bound: stopped at once (bounded memory)')

  const ring = new KeysHolder(new MasterKeyRing(master, [retired]), async () => 2n, 100)
  ring.apply(
    [
      { id: idOf(0), wrapped: wrapDataKey(retired, idOf(0), k0), offset: 0n },
      { id: idOf(1), wrapped: wrapDataKey(master, idOf(1), k0), offset: 1n },
    ],
    2n,
  )
  await ring.caughtUp()
  t.same(ring.keyFor(idOf(0)), k0, 'with the old master given, its copy opens')
  t.equal(ring.keysOpenedByOldMaster, 1, 'and is counted (projector_data_keys_old_master); the current one is not')
})

t.test("A35 with A34: an older part's unopened value waits for that part; the recent part's does not", async (t) => {
  const retired = randomBytes(32)
  const k0 = randomBytes(32)
  const holder = new KeysHolder(new MasterKeyRing(master), async () => 4n, 100)
  holder.startAt(2n)
  holder.apply([entry(idOf(2), randomBytes(32), 2), entry(idOf(3), randomBytes(32), 3)], 4n)
  await holder.recentCaughtUp()
  holder.applyOlder([{ id: idOf(0), wrapped: wrapDataKey(retired, idOf(0), k0), offset: 0n }])
  await holder.recentCaughtUp()
  holder.applyOlder([{ id: idOf(0), wrapped: wrapDataKey(master, idOf(0), k0), offset: 1n }])
  holder.olderRead()
  await holder.caughtUp()
  t.same(holder.keyFor(idOf(0)), k0, 'replaced within the older part: served')

  const stuck = new KeysHolder(new MasterKeyRing(master), async () => 3n, 100)
  stuck.startAt(2n)
  stuck.apply([{ id: idOf(2), wrapped: wrapDataKey(retired, idOf(2), k0), offset: 2n }], 3n)
  await t.rejects(stuck.recentCaughtUp(), KeyUnwrapError, 'the recent part is the latest of its ids: stopped')
})

t.test(
  'A21: a held key is the same Buffer on every ask, so its stream continues; a tombstone is never served from it',
  async (t) => {
    const holder = new KeysHolder(new MasterKeyRing(master), async () => 2n, 100)
    const k0 = randomBytes(32)
    holder.apply([entry(idOf(0), k0, 0), entry(idOf(1), randomBytes(32), 1)], 2n)
    const first = holder.keyFor(idOf(0))
    t.same(first, k0)
    t.equal(holder.keyFor(idOf(0)), first, 'the same object: the decipher kept on it (key-stream.ts) is found again')
    holder.apply([entry(idOf(0), null, 2)], 3n)
    t.equal(holder.keyFor(idOf(0)), undefined, 'a tombstone removes the held key too')
    const k1 = randomBytes(32)
    holder.keyFor(idOf(1))
    holder.apply([entry(idOf(1), k1, 3)], 4n)
    t.same(holder.keyFor(idOf(1)), k1, 'a key written again is served with its new bytes')
  },
)

t.test('A21: the recent keys hold at most their size; a key they dropped is read from the table again', async (t) => {
  const holder = new KeysHolder(new MasterKeyRing(master), async () => 0n, 10)
  const keys = Array.from({ length: 50 }, () => randomBytes(32))
  holder.apply(
    keys.map((k, i) => entry(idOf(i), k, i)),
    50n,
  )
  const recent = new RecentKeys(10)
  let wrong = 0
  for (let round = 0; round < 3; round++)
    for (let i = 0; i < keys.length; i++) {
      if (!holder.keyFor(idOf(i))?.equals(keys[i]!)) wrong++
      if (recent.get(idOf(i)) === undefined) recent.add(idOf(i), keys[i]!)
      if (recent.size > 10) wrong++
    }
  t.equal(wrong, 0, 'every key opens with its bytes, never more than 10 held')
  // A key asked for often stays held while others pass through.
  const hot = recent.get(idOf(49))!
  for (let i = 0; i < 40; i++) {
    recent.get(idOf(49))
    if (recent.get(idOf(i)) === undefined) recent.add(idOf(i), keys[i]!)
  }
  t.equal(recent.get(idOf(49)), hot, 'a key asked for within every half of the size is kept')
})

t.test('A24: a replay holds twice the keys on the topic, up to its cap, never fewer than the live size', async (t) => {
  t.equal(replayOpenEntries(100_000, 10_000, 200_000), 200_000, 'every key of the topic held')
  t.equal(replayOpenEntries(60_000, 10_000, 200_000), 120_000)
  t.equal(replayOpenEntries(1_000_000, 10_000, 200_000), 200_000, 'at most the cap')
  t.equal(replayOpenEntries(100, 10_000, 200_000), 10_000, 'at least the live projector’s size')
  t.equal(loadProjectorConfig({}).replayOpenCacheEntries, 200_000)
  t.equal(loadProjectorConfig({ REPLAY_OPEN_CACHE_ENTRIES: '500000' }).replayOpenCacheEntries, 500_000)
  t.throws(
    () => loadProjectorConfig({ PRIVACY_OPEN_CACHE_ENTRIES: '5000', REPLAY_OPEN_CACHE_ENTRIES: '4000' }),
    ConfigError,
    'a replay cap below the live size is refused at start',
  )
})

t.test(
  'A24: with the replay size every key stays held over a pass through all of them; a tombstone still removes it',
  async (t) => {
    const n = 50
    const holder = new KeysHolder(new MasterKeyRing(master), async () => 0n, 10)
    const keys = Array.from({ length: n }, () => randomBytes(32))
    holder.apply(
      keys.map((k, i) => entry(idOf(i), k, i)),
      BigInt(n),
    )
    holder.holdOpened(replayOpenEntries(holder.size, 10, 1_000))
    const first = keys.map((_, i) => holder.keyFor(idOf(i)))
    let moved = 0
    for (let i = 0; i < n; i++) if (holder.keyFor(idOf(i)) !== first[i]) moved++
    t.equal(moved, 0, 'the second pass finds every key as the same object, so its decipher continues')
    holder.apply([entry(idOf(7), null, n)], BigInt(n + 1))
    t.equal(holder.keyFor(idOf(7)), undefined, 'a tombstoned key is never served from the held keys')
    const again = randomBytes(32)
    holder.apply([entry(idOf(8), again, n + 1)], BigInt(n + 2))
    t.same(holder.keyFor(idOf(8)), again, 'a key written again is served with its new bytes')
  },
)

t.test(
  'A27: a tombstone drops the held key with its continued reader: a reference taken before opens nothing',
  async (t) => {
    const holder = new KeysHolder(new MasterKeyRing(master), async () => 0n, 10)
    const bytes = randomBytes(32)
    holder.apply([entry(idOf(1), bytes, 0)], 1n)
    // Records of one key: once two are opened, the key's reader continues at the third one's offset.
    const texts = ['first record of the key', 'second record', 'third', 'fourth']
    const stream = new KeyStream(bytes)
    const bodies = texts.map((text) => Buffer.from(stream.seal(text)))
    const held = holder.keyFor(idOf(1))!
    const before = bodies.slice(0, 2).map((b) => openStream(held, b).toString('utf8'))
    t.same(before, texts.slice(0, 2), 'opens while held')
    holder.apply([entry(idOf(1), null, 1)], 2n)
    const after = bodies.slice(2).map((b) => openStream(held, b).toString('utf8'))
    t.equal(
      after.filter((text, i) => text === texts[i + 2]).length,
      0,
      'the records after the tombstone do not open through the Buffer served before it',
    )
  },
)

t.test('a shared table is read by another through its image, and that reader cannot write', async (t) => {
  const table = new KeyTable(true)
  const keys = Array.from({ length: 3000 }, () => randomBytes(32))
  keys.forEach((k, i) => table.set(idOf(i), k))
  table.delete(idOf(7))
  const image = table.image()
  t.ok(image.buffer instanceof SharedArrayBuffer, 'the bytes are in shared memory, grown or not')
  const reader = KeyTable.over(image)
  t.equal(reader.size, 2999)
  t.same(reader.get(idOf(2999)), keys[2999])
  t.equal(reader.get(idOf(7)), undefined)
  t.throws(() => reader.set(idOf(1), randomBytes(32)), /read-only/)
  t.throws(() => reader.delete(idOf(1)), /read-only/)
  t.throws(() => new KeyTable().image(), /only a shared key table/)
})

t.test('a holder started from a snapshot holds its keys, and what came after it wins', async (t) => {
  const first = new KeysHolder(new MasterKeyRing(master), async () => 3n, 100, { shared: true })
  const k = [randomBytes(32), randomBytes(32), randomBytes(32)]
  first.apply(
    k.map((key, i) => entry(idOf(i), key, i)),
    3n,
  )
  const snapshot = first.snapshot()
  t.equal(snapshot.position, 3n)

  let end = 3n
  const holder = new KeysHolder(new MasterKeyRing(master), async () => end, 100, { base: snapshot })
  t.equal(holder.size, 3)
  await holder.caughtUp() // nothing to read: the snapshot is at the topic's end
  t.same(holder.keyFor(idOf(1)), k[1], "a snapshot's key opens records")
  const held = holder.keyFor(idOf(0))!

  // A record fetched again from before the snapshot's position (a fetch before the seek) changes nothing.
  holder.apply([entry(idOf(1), null, 1)], 2n)
  t.same(holder.keyFor(idOf(1)), k[1], 'an entry the snapshot has already applied is skipped')

  // After the snapshot: a tombstone of one of its keys, a new value of another, a new key.
  const replaced = randomBytes(32)
  const added = randomBytes(32)
  end = 6n
  holder.apply([entry(idOf(0), null, 3), entry(idOf(2), replaced, 4), entry(idOf(3), added, 5)], 6n)
  t.equal(holder.keyFor(idOf(0)), undefined, "a tombstone after the snapshot hides the snapshot's key")
  t.ok(
    held.every((b) => b === 0),
    'the copy this holder had opened is zeroed (A27)',
  )
  t.same(holder.keyFor(idOf(2)), replaced, 'a new value after the snapshot wins over it')
  t.same(holder.keyFor(idOf(3)), added)
  t.equal(holder.size, 3, 'three keys held: 1, 2 (replaced) and 3')
  t.same(first.keyFor(idOf(0)), k[0], "the snapshot's bytes are not changed for the other threads")
})
