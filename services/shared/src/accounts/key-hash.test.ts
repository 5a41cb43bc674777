import t from 'tap'
import { createHash } from 'node:crypto'
import { generateKey, hashKey, maskKey } from './key-hash.js'

t.test('hashKey is hex SHA-256 of the whole key', async (t) => {
  t.equal(hashKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  const k = 'svc_live_' + 'x'.repeat(40)
  t.equal(hashKey(k), createHash('sha256').update(k).digest('hex'))
  t.match(hashKey(k), /^[0-9a-f]{64}$/)
  // the one-shot path hashes the UTF-8 bytes, as the Hash-object path always did
  const odd = 'svc_live_é☃\u{1F600}' + 'y'.repeat(30)
  t.equal(hashKey(odd), createHash('sha256').update(Buffer.from(odd, 'utf8')).digest('hex'))
})

t.test('generateKey gives well-formed, unique live and test keys', async (t) => {
  const live = generateKey('live')
  t.match(live.key, /^svc_live_[A-Za-z0-9]{40}$/)
  t.equal(live.hash, hashKey(live.key))
  t.equal(live.masked, maskKey(live.key))
  const test = generateKey('test')
  t.match(test.key, /^svc_test_[A-Za-z0-9]{40}$/)
  const seen = new Set<string>()
  for (let i = 0; i < 500; i++) seen.add(generateKey('live').key)
  t.equal(seen.size, 500)
})

t.test('generated characters cover the whole alphabet roughly uniformly', async (t) => {
  const counts = new Map<string, number>()
  const N = 2000
  for (let i = 0; i < N; i++) for (const c of generateKey('test').key.slice(9)) counts.set(c, (counts.get(c) ?? 0) + 1)
  t.equal(counts.size, 62)
  const expected = (N * 40) / 62 // ~1290 each
  for (const [c, n] of counts) {
    if (n < expected * 0.8 || n > expected * 1.2)
      t.fail(`char ${c} appears ${n} times, expected ~${expected.toFixed(0)}`)
  }
  // with modulo bias (256 % 62 = 8), 'A'..'H' would appear ~5/4 as often as the rest
  const biased = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].reduce((s, c) => s + counts.get(c)!, 0) / 8
  const rest = [...counts].filter(([c]) => !'ABCDEFGH'.includes(c)).reduce((s, [, n]) => s + n, 0) / 54
  t.ok(biased / rest < 1.1, `no modulo bias (ratio ${(biased / rest).toFixed(3)})`)
})

t.test('maskKey shows prefix, first and last four only', async (t) => {
  t.equal(maskKey('svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789wxyz'), 'svc_live_AbCd…wxyz')
  t.equal(maskKey('svc_test_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789wxyz'), 'svc_test_AbCd…wxyz')
  t.equal(maskKey('svc_live_short'), 'svc_live_…')
  t.equal(maskKey('something-else-entirely-123456789'), '…')
})
