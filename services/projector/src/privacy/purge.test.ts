import t from 'tap'
import { PEOPLE_TEXT_BYTES, statementGroups } from './purge.js'

const person = (user_id: string) => ({ account_id: 'acc', user_id })

t.test('statementGroups: everyone in one group while their ids fit, in order', async (t) => {
  const people = Array.from({ length: 200 }, (_, i) => person(`user_${i}`))
  t.same(statementGroups(people), [people], "the erasure worker's batch of ordinary ids: one statement")
  t.same(statementGroups([]), [])
})

t.test('statementGroups: ids that need escaping are split so each group stays within the budget', async (t) => {
  const long = Array.from({ length: 200 }, (_, i) => person(`${'\u0001'.repeat(250)}${String(i).padStart(5, '0')}`))
  const groups = statementGroups(long)
  t.ok(groups.length > 1)
  t.same(groups.flat(), long, 'everyone once, in order')
  const bytes = (g: typeof long) => g.reduce((n, p) => n + Buffer.byteLength(p.user_id) * 7, 0)
  for (const g of groups) t.ok(bytes(g) <= 2 * PEOPLE_TEXT_BYTES, 'each group of a size one statement takes')
  t.same(statementGroups([person('x'.repeat(10))], 10), [[person('x'.repeat(10))]], 'one over the budget goes alone')
})
