import t from 'tap'
import { inferKeys, jsonType, MAX_EXAMPLES } from './schema-inference.js'

t.test('jsonType names JSON types', async (t) => {
  t.same([null, [], {}, 'a', 1, true].map(jsonType), ['null', 'array', 'object', 'string', 'number', 'boolean'])
})

t.test('merges keys across samples: types by frequency, distinct examples, most common key first', async (t) => {
  const keys = inferKeys([
    { plan: 'pro', seats: 3 },
    { plan: 'free', seats: '3' },
    { plan: 'pro', seats: 5, beta: true },
    'not an object',
    [1, 2],
    null,
  ])
  t.same(
    keys.map((k) => k.key),
    ['plan', 'seats', 'beta'],
  )
  t.same(keys[0], { key: 'plan', seen: 3, types: ['string'], examples: ['"pro"', '"free"'] })
  t.same(keys[1]!.types, ['number', 'string'], 'the commoner type first')
  t.same(keys[2], { key: 'beta', seen: 1, types: ['boolean'], examples: ['true'] })
})

t.test('examples are bounded in number and length; null is a type, not an example', async (t) => {
  const keys = inferKeys([{ a: 'x'.repeat(500) }, { a: 'b' }, { a: 'c' }, { a: 'd' }, { a: null }])
  t.equal(keys[0]!.examples.length, MAX_EXAMPLES)
  t.ok(keys[0]!.examples[0]!.length <= 80 && keys[0]!.examples[0]!.endsWith('…'))
  t.same(keys[0]!.types, ['string', 'null'])
})
