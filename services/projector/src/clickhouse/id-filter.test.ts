import t from 'tap'
import { randomUUID } from 'node:crypto'
import { IdFilter } from './id-filter.js'

t.test('every added id is reported as maybe seen (no false negatives)', async (t) => {
  const f = new IdFilter(50_000)
  const ids = Array.from({ length: 50_000 }, () => randomUUID())
  for (const id of ids) f.checkAndAdd(id)
  t.equal(ids.filter((id) => !f.mightContain(id)).length, 0)
})

t.test('ids never added are mostly reported unseen (about 1% false positives at the sized load)', async (t) => {
  const f = new IdFilter(100_000)
  for (let i = 0; i < 100_000; i++) f.checkAndAdd(`seen-${i}`)
  let positives = 0
  for (let i = 0; i < 100_000; i++) if (f.mightContain(`other-${i}`)) positives++
  t.ok(positives < 3_000, `${positives} false positives of 100,000`)
})

t.test('sizes: at least 2^20 bits, powers of two, capped at 2^31', async (t) => {
  t.equal(new IdFilter(0).bits, 2 ** 20)
  t.equal(new IdFilter(1_000_000).bits, 2 ** 24)
  t.equal(new IdFilter(1e12).bits, 2 ** 31)
})

t.test('checkAndAdd: false the first time (and adds), true after', async (t) => {
  const f = new IdFilter(1000)
  t.equal(f.checkAndAdd('a'), false)
  t.equal(f.checkAndAdd('a'), true)
  t.equal(f.mightContain('a'), true)
})

t.test('addAscii sets the bits checkAndAdd sets for the same text', async (t) => {
  const ids = [randomUUID(), 'x', '', 'msg-123456789-abcdefghijklmnopqrstuvwxyz']
  for (const id of ids) {
    const a = new IdFilter(1000)
    const buf = Buffer.from(`..${id}..`, 'latin1')
    a.addAscii(buf, 2, 2 + id.length)
    t.equal(a.checkAndAdd(id), true, `${JSON.stringify(id)} added from bytes is seen as text`)
    const b = new IdFilter(1000)
    b.checkAndAdd(id)
    t.same(
      Buffer.from((a as unknown as { words: Uint32Array }).words.buffer),
      Buffer.from((b as unknown as { words: Uint32Array }).words.buffer),
      'the same bits',
    )
  }
})
