import t from 'tap'
import { leftBefore, liveKeyIds, type KeyEntry } from '../../../shared/src/privacy/keys-scan.js'
import { personKeyPrefix, personPartOf } from './person-keys.js'
import { accountSecretOf, pseudonymOf } from '../../../shared/src/privacy/crypto/index.js'

const master = Buffer.alloc(32, 7)
const prefix = personKeyPrefix(master, 'acme', 'u1')
const key = (id: string, at: number, tombstone = false): KeyEntry => ({ id, at, tombstone })

t.test('the prefix is the account and the pseudonym ingest keys the person with', async (t) => {
  t.equal(prefix, `acme\u0000${pseudonymOf(accountSecretOf(master, 'acme'), 'u1')}\u0000`)
  t.not(personKeyPrefix(master, 'acme', 'u2'), prefix, 'another user, another prefix')
  t.not(personKeyPrefix(master, 'other', 'u1'), prefix, 'the same user id in another account, another prefix')
})

t.test('every month and generation of the person, not yet tombstoned, and no one else', async (t) => {
  const other = personKeyPrefix(master, 'acme', 'u2')
  const entries = [
    key(`${prefix}2026-10\u0000aa`, 1),
    key(`${prefix}2026-11\u0000bb`, 2),
    key(`${prefix}2026-11\u0000cc`, 3),
    key(`${prefix}2026-10\u0000aa`, 4, true),
    key(`${other}2026-11\u0000dd`, 5),
  ]
  t.same(liveKeyIds(entries, prefix).sort(), [`${prefix}2026-11\u0000bb`, `${prefix}2026-11\u0000cc`])
  t.same(liveKeyIds([...entries, key(`${prefix}2026-10\u0000aa`, 6)], prefix).length, 3, 'a key written again is live')
})

t.test('records of the person left up to a time, tombstones included', async (t) => {
  const entries = [key(`${prefix}2026-11\u0000bb`, 2), key(`${prefix}2026-11\u0000bb`, 4, true), key(`${prefix}x`, 9)]
  t.equal(leftBefore(entries, prefix, 4), 2, 'the key and its tombstone')
  t.equal(leftBefore(entries, prefix, 1), 0, 'none before the first')
  t.equal(leftBefore([], prefix, 10), 0)
})

t.test("a key id's person part is its person's prefix: one lookup finds a batch's keys", async (t) => {
  t.equal(personPartOf(`${prefix}2026-11\u0000bb`), prefix)
  t.equal(personPartOf(prefix), prefix, 'the prefix itself')
  t.not(personPartOf(`${personKeyPrefix(master, 'acme', 'u2')}2026-11\u0000bb`), prefix)
  t.equal(personPartOf('\u0000roll'), '', 'the roll marker (keys-eraser.ts) names no one')
  t.equal(personPartOf('no-separator'), '')
})
