// Avro in the Confluent wire format (A2): magic byte 0, a 4-byte big-endian schema id, the Avro body.
// Encoding is done here with avsc and ids cached at start, so the hot path never awaits the registry;
// decoding resolves the writer's schema by id (fetched once per id) against our reader schema,
// so records written under an older schema version still read.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import avro from 'avsc'
import { SchemaRegistry, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry'
import { SCHEMA_FILES, type SchemaName } from './records.js'
import type { Topics } from './topics.js'

const AVRO_DIR = join(dirname(fileURLToPath(import.meta.url)), 'avro')

export function loadAvsc(name: SchemaName): Record<string, unknown> {
  return JSON.parse(readFileSync(join(AVRO_DIR, SCHEMA_FILES[name]), 'utf8'))
}

/** Which topic carries which record kinds. The accounts topic carries several, so its
 * subjects use the record name (TopicRecordNameStrategy); the others one each (TopicNameStrategy). */
export function subjectsFor(topics: Topics): Array<{ name: SchemaName; subject: string }> {
  return [
    { name: 'Event', subject: `${topics.events}-value` },
    { name: 'Identify', subject: `${topics.identifies}-value` },
    { name: 'Account', subject: `${topics.accounts}-tracking.v1.Account` },
    { name: 'Plan', subject: `${topics.accounts}-tracking.v1.Plan` },
    { name: 'ApiKey', subject: `${topics.accounts}-tracking.v1.ApiKey` },
    { name: 'DeadLetter', subject: `${topics.dlq}-value` },
    ...(topics.erasures ? [{ name: 'Erasure' as const, subject: `${topics.erasures}-value` }] : []),
    ...(topics.refusals ? [{ name: 'Refusals' as const, subject: `${topics.refusals}-value` }] : []),
  ]
}

/** The record can never be decoded: not in the wire format, or a writer schema that is not usable
 * Avro. Dead-letter it. */
export class UnknownSchemaError extends Error {
  readonly code = 'UNKNOWN_SCHEMA'
  readonly retriable = false
  constructor(
    message: string,
    readonly schemaId?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The writer schema was found but the Avro body does not decode with it. Dead-letter it. */
export class UndecodableRecordError extends Error {
  readonly code = 'UNDECODABLE_RECORD'
  readonly retriable = false
  constructor(
    message: string,
    readonly schemaId: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The registry could not answer (connection refused, timeout, 5xx, auth): says nothing about
 * the record. Retry it; never dead-letter or skip the record for this (H27, A5). */
export class RegistryUnavailableError extends Error {
  readonly code: string = 'REGISTRY_UNAVAILABLE'
  readonly retriable = true
  constructor(
    message: string,
    readonly schemaId: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The registry answered that it does not have the record's schema id (404, error code 40403). Only
 * our services write the topics, and they register a schema before writing with it (A2), so the
 * registry issued that id and has lost it (its storage lost or restored from an older copy, a schema
 * deleted for good): the record is fine and the registry is not (H41). Waited out like a registry
 * that does not answer, and alerting; never dead-lettered or skipped (an accounts record skipped
 * could be a key revocation). */
export class SchemaMissingError extends RegistryUnavailableError {
  override readonly code = 'SCHEMA_MISSING'
  constructor(
    readonly missingId: number,
    options?: { cause?: unknown },
  ) {
    super(
      `the schema registry does not have schema id ${missingId}, which records on the topics carry`,
      missingId,
      options,
    )
  }
}

/** Whether a registry client failure means "no such schema" rather than "no answer". The client
 * (mappersmith underneath) reports a network failure as status 400 with the socket error as text,
 * so only an explicit 404 from the server counts as an answer. */
export function isSchemaNotFound(err: unknown): boolean {
  return (err as { status?: unknown })?.status === 404
}

export interface Decoded {
  name: SchemaName | string
  schemaId: number
  value: any
}

export class Codec {
  private readonly types = new Map<SchemaName, avro.Type>()
  /** A15: the reader schemas without their last field `enc` (the v2 layout of today's history). */
  private readonly beforeEnc = new Map<SchemaName, avro.Type>()
  private readonly ids = new Map<SchemaName, number>()
  private readonly writers = new Map<
    number,
    { name: string; type: avro.Type; resolver?: any; readerLayout?: boolean }
  >()

  constructor(private readonly registry: SchemaRegistry) {
    for (const name of Object.keys(SCHEMA_FILES) as SchemaName[]) {
      const schema = loadAvsc(name) as any
      this.types.set(name, avro.Type.forSchema(schema))
      const fields = schema.fields as Array<{ name: string }> | undefined
      if (fields?.at(-1)?.name === 'enc')
        this.beforeEnc.set(name, avro.Type.forSchema({ ...schema, fields: fields.slice(0, -1) }))
    }
  }

  /** Registers every schema under its subject with BACKWARD compatibility (A2) and caches the ids. */
  async register(topics: Topics): Promise<Map<SchemaName, number>> {
    for (const { name, subject } of subjectsFor(topics)) {
      const { id } = await this.registry.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(loadAvsc(name)) },
        { subject, compatibility: COMPATIBILITY.BACKWARD },
      )
      this.ids.set(name, id)
      this.writers.set(id, { name, type: this.types.get(name)! })
    }
    return new Map(this.ids)
  }

  schemaId(name: SchemaName): number {
    const id = this.ids.get(name)
    if (id === undefined) throw new UnknownSchemaError(`schema ${name} is not registered`)
    return id
  }

  // Encoding space reused by every encode() (it is synchronous). toBuffer() would encode into
  // avsc's own scratch, copy into a new buffer, and the header would need a second buffer and
  // copy: per record of a batch that showed in ingest profiles (bench/HISTORY.md).
  private scratch = Buffer.allocUnsafe(64 * 1024)

  encode(name: SchemaName, value: unknown): Buffer {
    const id = this.schemaId(name)
    const type = this.types.get(name)!
    const end = type.encode(value, this.scratch, 5)
    // Larger than the scratch: avsc says how many bytes were missing; encode into an exact fit.
    const out = end < 0 ? Buffer.allocUnsafe(this.scratch.length - end) : Buffer.allocUnsafe(end)
    if (end < 0) type.encode(value, out, 5)
    else this.scratch.copy(out, 5, 5, end)
    out[0] = 0
    out.writeInt32BE(id, 1)
    return out
  }

  async decode(buf: Buffer): Promise<Decoded> {
    if (!buf || buf.length < 5 || buf[0] !== 0) throw new UnknownSchemaError('not in the Confluent wire format')
    const schemaId = buf.readInt32BE(1)
    const writer = this.writers.get(schemaId) ?? (await this.fetchWriter(schemaId))
    return this.decodeWith(writer, schemaId, buf)
  }

  /**
   * decode() without a promise when the writer schema is known already (every record after the
   * first of its schema): undefined when it must be fetched, then call decode(). Replays decode
   * millions of records, and a promise per record showed in their profiles (bench/HISTORY.md).
   */
  decodeKnown(buf: Buffer): Decoded | undefined {
    if (!buf || buf.length < 5 || buf[0] !== 0) throw new UnknownSchemaError('not in the Confluent wire format')
    const schemaId = buf.readInt32BE(1)
    const writer = this.writers.get(schemaId)
    return writer === undefined ? undefined : this.decodeWith(writer, schemaId, buf)
  }

  /**
   * The schema name when `buf`'s writer schema is known and is the reader's schema of that name
   * (the same canonical form, so the same binary layout), or that schema without its last field `enc`
   * (A15: records written before it, whose bytes are the same up to that field): its bytes may then be
   * read without avsc (the projector's event-transcoder.ts, which takes both). Undefined otherwise, and
   * for anything decodeKnown refuses.
   */
  readerLayout(buf: Buffer): SchemaName | undefined {
    if (!buf || buf.length < 5 || buf[0] !== 0) return undefined
    const writer = this.writers.get(buf.readInt32BE(1))
    if (writer === undefined) return undefined
    if (writer.readerLayout === undefined) {
      const reader = this.types.get(writer.name as SchemaName)
      const before = this.beforeEnc.get(writer.name as SchemaName)
      writer.readerLayout =
        reader !== undefined &&
        (writer.type === reader || writer.type.equals(reader) || before?.equals(writer.type) === true)
    }
    return writer.readerLayout ? (writer.name as SchemaName) : undefined
  }

  private decodeWith(
    writer: { name: string; type: avro.Type; resolver?: avro.Resolver },
    schemaId: number,
    buf: Buffer,
  ): Decoded {
    const reader = this.types.get(writer.name as SchemaName)
    try {
      // decode() at offset 5 reads the body in place; fromBuffer wanted a Buffer view of it, one more
      // object per record in a replay of millions (bench/HISTORY.md). The checks are fromBuffer's own.
      const { value, offset } =
        reader && writer.type !== reader ? reader.decode(buf, 5, writer.resolver) : writer.type.decode(buf, 5)
      if (offset < 0) throw new Error('truncated buffer')
      if (offset < buf.length) throw new Error('trailing data')
      return { name: writer.name, schemaId, value }
    } catch (err) {
      throw new UndecodableRecordError(
        `record does not decode with schema id ${schemaId}: ${(err as Error).message}`,
        schemaId,
        { cause: err },
      )
    }
  }

  private async fetchWriter(schemaId: number) {
    let schema: any
    try {
      schema = await this.registry.getSchema(schemaId)
    } catch (err) {
      if (isSchemaNotFound(err)) throw new SchemaMissingError(schemaId, { cause: err })
      throw new RegistryUnavailableError(
        `schema registry did not answer for schema id ${schemaId}: ${(err as Error)?.message ?? err}`,
        schemaId,
        { cause: err },
      )
    }
    // avsc's Type carries the record's full name; our reader types are keyed by the short name.
    let type: avro.Type
    try {
      type = typeof schema?.fromBuffer === 'function' ? schema : avro.Type.forSchema(schema)
    } catch (err) {
      throw new UnknownSchemaError(`schema id ${schemaId} is not a usable Avro schema`, schemaId, { cause: err })
    }
    const short =
      String((type as any).name ?? '')
        .split('.')
        .pop() ?? ''
    const reader = this.types.get(short as SchemaName)
    const entry = { name: short, type, resolver: reader ? reader.createResolver(type) : undefined }
    this.writers.set(schemaId, entry)
    return entry
  }
}

export function createRegistry(url: string, auth?: { username: string; password: string }): SchemaRegistry {
  return new SchemaRegistry({ host: url, retry: { retries: 3 }, ...(auth ? { auth } : {}) })
}
