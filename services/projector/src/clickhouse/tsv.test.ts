import t from 'tap'
import { tsvChunks, tsvField, tsvLine } from './tsv.js'
import { eventRow, identifyRow, traitRows, RowMappingError } from './rows.js'
import { makeEvent, makeIdentify } from '../../../../test/support/clickhouse-helpers.js'

t.test('fields: numbers print, tab, newline, CR and backslash are escaped, the rest is kept', async (t) => {
  t.equal(tsvField(42, 'e'), '42')
  t.equal(tsvField(-1.5, 'e'), '-1.5')
  t.equal(tsvField('plain "json" {}', 'e'), 'plain "json" {}')
  t.equal(tsvField('a\tb\nc\rd\\e', 'e'), 'a\\tb\\nc\\rd\\\\e')
  t.equal(tsvField('{"q":"say \\"hi\\""}', 'e'), '{"q":"say \\\\"hi\\\\""}')
  t.equal(tsvField('\u{1F600} ü \u0000', 'e'), '\u{1F600} ü \u0000', 'other characters, NUL included, are literal in TSV')
})

t.test('an unpaired surrogate is refused naming the record, not written as U+FFFD', async (t) => {
  t.throws(() => tsvField('x\ud800y', 'e1'), RowMappingError)
  t.throws(() => tsvField('\udc00', 'e1'), RowMappingError)
  t.equal(tsvField('\ud83d\ude00', 'e1'), '\u{1F600}')
})

t.test('a line holds one field per key of the row, in key order', async (t) => {
  for (const row of [eventRow(makeEvent({ properties: '{"a":"x\\ty"}' })), identifyRow(makeIdentify()), ...traitRows('a', 'u', '{"k":"v"}', 0)]) {
    const line = tsvLine(row, 'e')
    t.ok(line.endsWith('\n'))
    const fields = line.slice(0, -1).split('\t')
    t.equal(fields.length, Object.keys(row).length)
    t.equal(fields[0], String(Object.values(row)[0]))
  }
})

t.test('lines are joined into bounded chunks', async (t) => {
  const lines = Array.from({ length: 12_001 }, (_, i) => `${i}\n`)
  const chunks = tsvChunks(lines)
  t.equal(chunks.length, 3)
  t.equal(chunks.join(''), lines.join(''))
  t.same(tsvChunks([]), [])
})
