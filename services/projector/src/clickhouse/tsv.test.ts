import t from 'tap'
import { checkRow, TsvRows } from './tsv.js'
import { eventRow, identifyRow, traitRows, RowMappingError } from './rows.js'
import { makeEvent, makeIdentify } from '../../../../test/support/clickhouse-helpers.js'

const text = (rows: TsvRows) => Buffer.concat(rows.chunks()).toString('utf8')
function one(row: object): string {
  const rows = new TsvRows()
  rows.add(checkRow(row, 'e'))
  return text(rows)
}

t.test('fields: numbers print, tab, newline, CR and backslash are escaped, the rest is kept', async (t) => {
  t.equal(one({ a: 42, b: -1.5, c: 'plain "json" {}' }), '42\t-1.5\tplain "json" {}\n')
  t.equal(one({ a: 'a\tb\nc\rd\\e' }), 'a\\tb\\nc\\rd\\\\e\n')
  t.equal(one({ a: '{"q":"say \\"hi\\""}' }), '{"q":"say \\\\"hi\\\\""}\n')
  t.equal(one({ a: 'é\tü\n\\' }), 'é\\tü\\n\\\\\n', 'escapes in non-ASCII text too')
  t.equal(one({ a: '\u{1F600} ü \u0000', b: '' }), '\u{1F600} ü \u0000\t\n', 'other characters, NUL included, are literal in TSV')
})

t.test('an unpaired surrogate is refused naming the record, not written as U+FFFD', async (t) => {
  t.throws(() => checkRow({ a: 'x\ud800y' }, 'e1'), RowMappingError)
  t.throws(() => checkRow({ a: 1, b: '\udc00' }, 'e1'), RowMappingError)
  t.equal(one({ a: '\ud83d\ude00' }), '\u{1F600}\n')
})

t.test('a line holds one field per key of the row, in key order; columns name them', async (t) => {
  for (const row of [eventRow(makeEvent({ properties: '{"a":"x\\ty"}' })), identifyRow(makeIdentify()), ...traitRows('a', 'u', '{"k":"v"}', 0)]) {
    const rows = new TsvRows()
    rows.add(checkRow(row, 'e'))
    t.same(rows.columns, Object.keys(row))
    const fields = text(rows).slice(0, -1).split('\t')
    t.equal(fields.length, Object.keys(row).length)
    t.equal(fields[0], String(Object.values(row)[0]))
  }
})

t.test('rows fill chunks of bounded size and never span two; a huge row gets its own chunk', async (t) => {
  const rows = new TsvRows()
  const long = 'x'.repeat(2_000)
  for (let i = 0; i < 1_000; i++) rows.add(checkRow({ i, s: long }, 'e'))
  const huge = 'é'.repeat(1_000_000)
  rows.add(checkRow({ i: -1, s: huge }, 'e'))
  rows.add(checkRow({ i: -2, s: 'end' }, 'e'))
  const chunks = rows.chunks()
  t.ok(chunks.length >= 3)
  for (const c of chunks) t.equal(c.at(-1), 10, 'every chunk ends at a row end')
  const lines = text(rows).split('\n').slice(0, -1)
  t.equal(lines.length, 1_002)
  t.equal(rows.rows, 1_002)
  t.equal(lines[1_000], `-1\t${huge}`)
  t.equal(lines[1_001], '-2\tend')
  t.same(new TsvRows().chunks(), [])
})

t.test('a column without a value makes the record invalid instead of writing "undefined"', async (t) => {
  t.throws(() => checkRow({ a: 'x', b: undefined }, 'e1'), { message: 'column b has no value' })
  t.throws(() => checkRow({ a: null }, 'e1'), RowMappingError)
})
