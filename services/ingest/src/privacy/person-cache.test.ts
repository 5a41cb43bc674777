// A20: the sealer's cache of people holds at most its bound, keeps whoever is seen again, and forgets
// whoever was not seen for a whole generation.
import t from 'tap'
import { PersonCache } from './person-cache.js'

t.test('two generations: people seen again stay, the others go, never more than the bound', async (t) => {
  const c = new PersonCache<number>(10)
  for (const [i, u] of ['a', 'b', 'c', 'd', 'e'].entries()) c.add('acme', u, i)
  t.equal(c.get('acme', 'a'), 0, 'seen again: moves to the young generation')
  for (const [i, u] of ['f', 'g', 'h', 'i'].entries()) c.add('acme', u, 5 + i)
  t.equal(c.get('acme', 'b'), undefined, 'not seen for a whole generation: forgotten')
  t.equal(c.get('acme', 'a'), 0)
  t.equal(c.get('acme', 'f'), 5)
  t.equal(c.get('other', 'a'), undefined, 'per account')
  for (let i = 0; i < 100; i++) c.add('acme', `u${i}`, i)
  let held = 0
  for (let i = 0; i < 100; i++) if (c.get('acme', `u${i}`) !== undefined) held++
  t.ok(held <= 10, `held ${held}`)
})

t.test('a bound of one holds the latest person', async (t) => {
  const c = new PersonCache<number>(1)
  c.add('acme', 'a', 1)
  t.equal(c.get('acme', 'a'), 1)
  c.add('acme', 'b', 2)
  t.equal(c.get('acme', 'a'), undefined)
  t.equal(c.get('acme', 'b'), 2)
})
