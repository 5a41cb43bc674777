import t from 'tap'
import { RowArena, tsvLine } from './tsv.js'
import { eventRow, identifyRow, traitRows, RowMappingError, type RowValues } from './rows.js'
import { makeEvent, makeIdentify } from '../../../../test/support/clickhouse-helpers.js'

// A row given as an object: its keys are the columns, its values the values in that order.
const line = (row: object, eventId = 'e') => tsvLine(Object.values(row) as RowValues, Object.keys(row), eventId)
const one = (row: object): string => line(row)

t.test('fields: numbers print, tab, newline, CR and backslash are escaped, the rest is kept', async (t) => {
  t.equal(one({ a: 42, b: -1.5, c: 'plain "json" {}' }), '42\t-1.5\tplain "json" {}\n')
  t.equal(one({ a: 'a\tb\nc\rd\\e' }), 'a\\tb\\nc\\rd\\\\e\n')
  t.equal(one({ a: '{"q":"say \\"hi\\""}' }), '{"q":"say \\\\"hi\\\\""}\n')
  t.equal(one({ a: 'é\tü\n\\' }), 'é\\tü\\n\\\\\n', 'escapes in non-ASCII text too')
  t.equal(
    one({ a: '\u{1F600} ü \u0000', b: '' }),
    '\u{1F600} ü \u0000\t\n',
    'other characters, NUL included, are literal in TSV',
  )
})

t.test('an unpaired surrogate is refused naming the record, not written as U+FFFD', async (t) => {
  t.throws(() => line({ a: 'x\ud800y' }, 'e1'), RowMappingError)
  t.throws(() => line({ a: 1, b: '\udc00' }, 'e1'), RowMappingError)
  t.equal(one({ a: '\ud83d\ude00' }), '\u{1F600}\n')
})

t.test('a line holds one field per column of the row, in column order', async (t) => {
  for (const row of [
    eventRow(makeEvent({ properties: '{"a":"x\\ty"}' })),
    identifyRow(makeIdentify()),
    ...traitRows('a', 'u', '{"k":"v"}', 0),
  ]) {
    const fields = line(row).slice(0, -1).split('\t')
    t.equal(fields.length, Object.keys(row).length)
    t.equal(fields[0], String(Object.values(row)[0]))
  }
})

t.test(
  'the arena fills chunks of bounded size, never splits an append, and gives a huge one its own chunk',
  async (t) => {
    const arena = new RowArena(64 * 1024)
    const long = 'x'.repeat(2_000)
    const got: string[] = []
    const chunks = new Set<Buffer>()
    const add = (l: string) => {
      const start = arena.append(l)
      chunks.add(arena.chunk!)
      got.push(arena.chunk!.toString('utf8', start, arena.pos))
    }
    for (let i = 0; i < 1_000; i++) add(line({ i, s: long }))
    const huge = 'é'.repeat(100_000)
    add(line({ i: -1, s: huge }))
    add(line({ i: -2, s: 'end' }))
    t.ok(chunks.size >= 30, `${chunks.size} chunks`)
    t.equal(got[0], `0\t${long}\n`)
    t.equal(got[999], `999\t${long}\n`)
    t.equal(got[1_000], `-1\t${huge}\n`, 'a multi-byte append larger than a chunk')
    t.equal(got[1_001], '-2\tend\n')
    t.ok(
      [...chunks].every((c) => c.length === 64 * 1024 || c.length >= huge.length * 3),
      'chunks are the set size unless an append needs more',
    )
  },
)

t.test('a column without a value makes the record invalid instead of writing "undefined"', async (t) => {
  t.throws(() => line({ a: 'x', b: undefined }, 'e1'), { message: 'column b has no value' })
  t.throws(() => line({ a: null }, 'e1'), RowMappingError)
})
