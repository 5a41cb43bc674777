// A25: the sealed record built directly holds exactly the Avro schema's fields, each personal field
// (PERSONAL_FIELDS) blank, the clear ones as the record had them, the pseudonym in user_id.
import t from 'tap'
import { loadAvsc } from '../../../../../schemas/codec.js'
import { PERSONAL_FIELDS, type RecordKind } from './personal-fields.js'
import { sealedRecordOf } from './sealed-record.js'

const schemas = { event: 'Event', identify: 'Identify' } as const
const BLANK_TEXT = new Set(['properties', 'context', 'traits'])

for (const kind of ['event', 'identify'] as RecordKind[]) {
  t.test(`${kind}: the schema's fields, personal ones blank, clear ones copied`, async (t) => {
    const fields = (loadAvsc(schemas[kind]).fields as Array<{ name: string }>).map((f) => f.name)
    // Every field a distinct value, so a field copied from the wrong one shows.
    const record = Object.fromEntries(fields.map((f) => [f, `value of ${f}`]))
    const enc = { key_id: 'k', body: Buffer.alloc(1) }
    const out = sealedRecordOf(kind)(record, 'pseudonym', enc)
    t.same(Object.keys(out), fields, 'the schema fields, in its order')
    const personal = new Set(PERSONAL_FIELDS[kind])
    for (const f of fields) {
      const want =
        f === 'enc'
          ? enc
          : f === 'user_id'
            ? 'pseudonym'
            : personal.has(f)
              ? BLANK_TEXT.has(f)
                ? '{}'
                : null
              : record[f]
      t.same(out[f], want, f)
    }
  })
}
