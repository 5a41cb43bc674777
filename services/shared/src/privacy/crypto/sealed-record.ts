// A25: the record a sealed one is, built as one object literal: the clear fields copied, the personal fields
// (PERSONAL_FIELDS) blank, `user_id` the pseudonym, `enc` the sealed body. A copy with the blanks laid over
// it (`Object.assign`, A20) cost about ten times a literal. The literal of each kind is made once, from the
// Avro schema's fields and PERSONAL_FIELDS (the one source of which field is which), as the body of a
// function: so it is a plain literal V8 builds at once, and a field added to either list is in it.
import { loadAvsc } from '../../../../../schemas/codec.js'
import { PERSONAL_FIELDS, type RecordKind } from './personal-fields.js'

type Rec = Record<string, unknown>
export type SealedRecordOf = (record: Rec, pseudonym: string, enc: unknown) => Rec

/** What a sealed record holds in place of a personal field: the schema's fields stay, empty. */
const BLANK_TEXT = new Set(['properties', 'context', 'traits'])
/** Avro names: letters, digits and underscores, so each is written into the function's text as it is. */
const AVRO_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

function builderOf(schema: 'Event' | 'Identify', kind: RecordKind): SealedRecordOf {
  const personal = new Set(PERSONAL_FIELDS[kind])
  const fields = (loadAvsc(schema).fields as Array<{ name: string }>).map(({ name }) => {
    if (!AVRO_NAME.test(name)) throw new Error(`unexpected Avro field name ${JSON.stringify(name)}`)
    if (name === 'enc') return 'enc'
    if (name === 'user_id') return 'user_id: pseudonym'
    if (personal.has(name)) return `${name}: ${BLANK_TEXT.has(name) ? "'{}'" : 'null'}`
    return `${name}: record.${name}`
  })
  return new Function('record', 'pseudonym', 'enc', `return { ${fields.join(', ')} }`) as SealedRecordOf
}

let builders: Record<RecordKind, SealedRecordOf> | undefined

/** The builder of a kind's sealed record (made on first use: personal-fields.ts, which holds the lists,
 *  imports this module). */
export function sealedRecordOf(kind: RecordKind): SealedRecordOf {
  builders ??= { event: builderOf('Event', 'event'), identify: builderOf('Identify', 'identify') }
  return builders[kind]
}
