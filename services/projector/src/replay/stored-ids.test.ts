import t from 'tap'
import { randomUUID } from 'node:crypto'
import { IdFilter } from '../clickhouse/id-filter.js'
import { addLines, unescapeTsv } from './stored-ids.js'

async function* pieces(text: string, size: number) {
  const all = Buffer.from(text, 'utf8')
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size)
}

t.test('every id of the list is in the filter, however the response is cut into pieces', async (t) => {
  const ids = [
    ...Array.from({ length: 2_000 }, () => randomUUID()),
    'tab\there',
    'back\\slash',
    'nouveauté',
    'émoji 🎉',
    'new\nline',
  ]
  // TabSeparated as ClickHouse writes a String column: one value a line, \t \n \\ escaped.
  const text = ids.map((id) => id.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n') + '\n').join('')
  for (const size of [1, 7, 4096, 1 << 20]) {
    const f = new IdFilter(10_000)
    t.equal(await addLines(pieces(text, size), f), ids.length, `pieces of ${size} bytes: every line counted`)
    t.same(
      ids.filter((id) => !f.mightContain(id)),
      [],
      `pieces of ${size} bytes: no id missing`,
    )
  }
})

t.test('a list that ends in the middle of a line is an error, not a shorter list', async (t) => {
  await t.rejects(addLines(pieces('a\nb\nhalf', 3), new IdFilter(10)), /middle of a line/)
})

t.test('unescapeTsv reverses ClickHouse escapes', async (t) => {
  t.equal(unescapeTsv("a\\tb\\nc\\\\d\\0e\\'f"), "a\tb\nc\\d\0e'f")
  t.equal(unescapeTsv('plain'), 'plain')
})
