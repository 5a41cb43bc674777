// A12 stage 2: which fields of each record type on the event topics are personal (sealed with the
// person's data key) and which stay clear because routing, ordering, billing and time need them. The
// Segment types map onto these two (H50, H51): alias is an identify whose anonymous_id is the previous id,
// group is an event whose properties hold the group id and traits; both are covered by the lists below.
import { open, seal } from './data-key.js'
import { packFields, unpackFields } from './field-text.js'
import { isStreamKeyId, type KeyStream, openStream } from './key-stream.js'
import { sealedRecordOf } from './sealed-record.js'

export type RecordKind = 'event' | 'identify'

/** Sealed together, as one JSON object, so the Avro record carries one bytes field. */
export const PERSONAL_FIELDS: Record<RecordKind, readonly string[]> = {
  event: [
    'user_id',
    'user_email',
    'user_traits',
    'properties',
    'context',
    'ip',
    'user_agent',
    'message_id',
    'anonymous_id',
  ],
  identify: ['user_id', 'email', 'traits', 'context', 'ip', 'user_agent', 'message_id', 'anonymous_id'],
}

/** Clear, and bound to the ciphertext as AAD, so a sealed body cannot be moved to another record. */
export const CLEAR_AAD_FIELDS: Record<RecordKind, readonly string[]> = {
  event: ['event_id', 'account_id', 'environment', 'key_id', 'event', 'timestamp', 'received_at'],
  identify: ['event_id', 'account_id', 'environment', 'key_id', 'timestamp', 'received_at'],
}

export interface Sealed {
  key_id: string
  body: Buffer
}

type Rec = Record<string, unknown>

function aadOf(kind: RecordKind, record: Rec): Buffer {
  const values = CLEAR_AAD_FIELDS[kind].map((f) => {
    const v = record[f]
    return v instanceof Date ? v.getTime() : (v ?? null)
  })
  return Buffer.from(JSON.stringify(values), 'utf8')
}

/**
 * The record with its personal fields sealed into `enc`; `user_id` becomes the pseudonym (the schema
 * needs a string there, and the projector must not need the key to group a person's records). A key id
 * of the stream format (A18) seals with the key's stream, any other with AES-256-GCM (A13).
 */
export function encryptPersonalFields<R extends Rec>(
  kind: RecordKind,
  record: R,
  key: { id: string; bytes: Buffer; stream?: KeyStream },
  pseudonym: string,
): R & { enc: Sealed } {
  if (isStreamKeyId(key.id)) return sealPersonalFields(kind, record, { id: key.id, stream: streamOf(key) }, pseudonym)
  const personal = JSON.stringify(personalOf(PERSONAL_FIELDS[kind], record))
  // The AAD's fields are clear, the same in the record and in its sealed form.
  const body = seal(key.bytes, Buffer.from(personal, 'utf8'), aadOf(kind, record))
  return sealed(kind, record, pseudonym, { key_id: key.id, body }) as R & { enc: Sealed }
}

/** A data key of the stream format (A18) as its one writer holds it: the id its records name, its stream. */
export interface StreamKey {
  id: string
  stream: KeyStream
}

/**
 * The stream-format seal (A18) with nothing chosen per call, ingest's path (A20): the sealed record built
 * directly (A25), the fields packed as text and sealed by the key's stream.
 */
export function sealPersonalFields<R extends Rec>(
  kind: RecordKind,
  record: R,
  key: StreamKey,
  pseudonym: string,
): R & { enc: Sealed } {
  const body = key.stream.seal(packFields(record, PERSONAL_FIELDS[kind]))
  return sealed(kind, record, pseudonym, { key_id: key.id, body }) as R & { enc: Sealed }
}

/**
 * A20: consecutive records of one key (a batch of one person, /v1/events) sealed with one `update` of its
 * stream for them all; each body is the one `sealPersonalFields` would give it, in the same order.
 */
export function sealPersonalFieldsRun<R extends Rec>(
  items: ReadonlyArray<{ kind: RecordKind; record: R }>,
  key: StreamKey,
  pseudonym: string,
): Array<R & { enc: Sealed }> {
  const bodies = key.stream.sealAll(items.map(({ kind, record }) => packFields(record, PERSONAL_FIELDS[kind])))
  return items.map(
    ({ kind, record }, i) =>
      sealed(kind, record, pseudonym, { key_id: key.id, body: bodies[i]! }) as R & { enc: Sealed },
  )
}

/** The sealed form of a record (A25: built directly, sealed-record.ts). */
function sealed(kind: RecordKind, record: Rec, pseudonym: string, enc: Sealed): Rec {
  return sealedRecordOf(kind)(record, pseudonym, enc)
}

function personalOf(fields: readonly string[], record: Rec): Rec {
  const personal: Rec = {}
  for (const f of fields) personal[f] = record[f] ?? null
  return personal
}

function streamOf(key: { id: string; stream?: KeyStream }): KeyStream {
  if (key.stream === undefined) throw new TypeError(`key ${JSON.stringify(key.id)} of the stream format has no stream`)
  return key.stream
}

/**
 * The record as ingest received it. A record without `enc` (written before stage 2) is returned as it is;
 * `undefined` when its key is gone (erased or past retention): the caller projects a usage stub only.
 */
export function decryptRecord<R extends Rec>(
  kind: RecordKind,
  record: R & { enc?: Sealed | null },
  keyFor: (keyId: string) => Buffer | undefined,
): R | undefined {
  const { enc, ...rest } = record
  if (!enc) return rest as unknown as R
  const key = keyFor(enc.key_id)
  if (!key) return undefined
  const personal = isStreamKeyId(enc.key_id)
    ? unpackFields(openStream(key, enc.body).toString('utf8'), PERSONAL_FIELDS[kind])
    : (JSON.parse(open(key, enc.body, aadOf(kind, rest)).toString('utf8')) as Rec)
  return { ...rest, ...personal } as R
}
