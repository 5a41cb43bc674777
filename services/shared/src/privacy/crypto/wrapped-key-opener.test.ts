// A36: the batched opener agrees with Node's AES-256-GCM (data-key.ts's wrap and open) on every value: the
// keys it opens, and each value it must refuse (another master, another id, any byte changed, another shape).
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { open, seal, unwrapDataKey, wrapDataKey } from './data-key.js'
import { WrappedKeyOpener } from './wrapped-key-opener.js'

/** Ids of every length around the 16-byte blocks, longer than the opener's first AAD buffer, and not ASCII. */
function someId(i: number): string {
  const lengths = [0, 1, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 255, 256, 257, 600]
  const n = lengths[i % lengths.length]!
  const base = randomBytes(n).toString('base64').slice(0, n)
  return i % 5 === 0 ? `${base}\u0000é€😀` : base
}

t.test('every key wrapped by Node opens, in one batch and one by one, and equals what Node opens', async (t) => {
  const master = randomBytes(32)
  const opener = new WrappedKeyOpener(master)
  // More than one ECB batch (1,024 keys), so a batch's end and the next one's start are crossed.
  const ids = Array.from({ length: 2_600 }, (_, i) => someId(i))
  const keys = ids.map(() => randomBytes(32))
  const wrapped = ids.map((id, i) => wrapDataKey(master, id, keys[i]!))
  const out: (Buffer | undefined)[] = new Array(ids.length)
  opener.openAll(ids, wrapped, out)
  let wrong = 0
  for (let i = 0; i < ids.length; i++) {
    if (!out[i]?.equals(keys[i]!)) wrong++
    if (!out[i]?.equals(unwrapDataKey(master, ids[i]!, wrapped[i]!))) wrong++
  }
  t.equal(wrong, 0, 'every key, as Node opens it')
  for (let i = 0; i < 40; i++)
    t.same(opener.open(ids[i]!, wrapped[i]!), keys[i], `one by one: id of ${ids[i]!.length} chars`)
})

t.test('a value is refused as Node refuses it: another master, another id, any byte changed', async (t) => {
  const master = randomBytes(32)
  const opener = new WrappedKeyOpener(master)
  const id = 'acme\u0000pseudonym\u00002026-12\u0000s0a0b0c0d'
  const key = randomBytes(32)
  const wrapped = wrapDataKey(master, id, key)
  t.same(opener.open(id, wrapped), key)
  t.equal(opener.open(id, wrapDataKey(randomBytes(32), id, key)), undefined, 'another master')
  t.equal(opener.open(`${id}x`, wrapped), undefined, 'another id (the AAD)')
  t.equal(opener.open(id.slice(0, -1), wrapped), undefined, 'a shorter id')
  let opened = 0
  let nodeOpened = 0
  for (let byte = 0; byte < wrapped.length; byte++)
    for (let bit = 0; bit < 8; bit++) {
      const changed = Buffer.from(wrapped)
      changed[byte]! ^= 1 << bit
      if (opener.open(id, changed) !== undefined) opened++
      try {
        unwrapDataKey(master, id, changed)
        nodeOpened++
      } catch {
        // refused, as it must be
      }
    }
  t.equal(opened, 0, `none of the ${wrapped.length * 8} values with one bit changed opens`)
  t.equal(nodeOpened, 0, 'nor with Node')
  t.equal(opener.open(id, wrapped.subarray(0, 59)), undefined, 'cut short')
  t.equal(opener.open(id, Buffer.alloc(0)), undefined, 'empty')
  t.equal(opener.open(id, Buffer.concat([wrapped, Buffer.alloc(1)])), undefined, 'a byte longer')
})

t.test('another shape than ingest writes (a key of another length) is opened by Node, as before', async (t) => {
  const master = randomBytes(32)
  const opener = new WrappedKeyOpener(master)
  const short = randomBytes(16)
  const value = seal(master, short, Buffer.from('id', 'utf8'))
  t.same(opener.open('id', value), open(master, value, Buffer.from('id', 'utf8')))
  t.same(opener.open('id', value), short)
  const out: (Buffer | undefined)[] = []
  const key = randomBytes(32)
  opener.openAll(['id', 'k', 'id'], [value, wrapDataKey(master, 'k', key), wrapDataKey(master, 'x', key)], out)
  t.same(out, [short, key, undefined], 'mixed in one batch, each where it was')
})
