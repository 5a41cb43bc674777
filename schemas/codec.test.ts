// Decoding failures are told apart: a record that can never be decoded (dead-letter it) from a
// registry that did not answer (wait, never dead-letter: H27, A5).
import t from 'tap'
import avro from 'avsc'
import { Codec, RegistryUnavailableError, SchemaMissingError, UndecodableRecordError, loadAvsc } from './codec.js'

const withId = (id: number, body: Buffer = Buffer.alloc(0)) => {
  const b = Buffer.alloc(5 + body.length)
  b.writeInt32BE(id, 1)
  body.copy(b, 5)
  return b
}
const codecWhoseRegistry = (getSchema: () => Promise<unknown>) => new Codec({ getSchema } as any)
// What the registry client throws: mappersmith reports a network failure as status 400.
const responseError = (status: number, message: string) =>
  Object.assign(new Error(`Confluent_Schema_Registry - ${message}`), { status })

t.test('a schema id the registry does not have is the registry missing it, waited out (H41)', async (t) => {
  const err = await codecWhoseRegistry(async () => {
    throw responseError(404, "No content with ID '7' was found.")
  })
    .decode(withId(7))
    .catch((e) => e)
  t.type(err, SchemaMissingError)
  t.type(err, RegistryUnavailableError, 'every wait for the registry waits for it')
  t.match(err, { code: 'SCHEMA_MISSING', retriable: true, schemaId: 7 })
})

t.test('a registry that does not answer is retriable', async (t) => {
  for (const cause of [
    responseError(400, 'Error, status 400: connect ECONNREFUSED 127.0.0.1:18081'),
    responseError(503, 'Service Unavailable'),
    responseError(401, 'Unauthorized'),
    new Error('socket hang up'),
  ]) {
    const err = await codecWhoseRegistry(async () => {
      throw cause
    })
      .decode(withId(7))
      .catch((e) => e)
    t.type(err, RegistryUnavailableError, cause.message)
    t.match(err, { code: 'REGISTRY_UNAVAILABLE', retriable: true, schemaId: 7 })
  }
})

t.test('not in the wire format, or a body that does not decode, is permanent', async (t) => {
  const codec = codecWhoseRegistry(async () => loadAvsc('Plan'))
  t.match(await codec.decode(Buffer.from('not avro')).catch((e) => e), { code: 'UNKNOWN_SCHEMA', retriable: false })
  const err = await codec.decode(withId(9, Buffer.from([0x80]))).catch((e) => e)
  t.type(err, UndecodableRecordError)
  t.match(err, { code: 'UNDECODABLE_RECORD', retriable: false, schemaId: 9 })
  // A whole record with bytes after it, and one cut short: neither is the record that was written.
  const plan = {
    name: 'p',
    requests_per_minute: 100,
    events_per_second: 10,
    events_per_month: 5,
    emails_per_month: 0,
    updated_at: 1,
  }
  const body = avro.Type.forSchema(loadAvsc('Plan') as any).toBuffer(plan)
  t.same((await codec.decode(withId(9, body))).value, plan, 'the record itself decodes')
  for (const [what, bad] of [
    ['trailing data', Buffer.concat([body, Buffer.from([0])])],
    ['truncated buffer', Buffer.from(body.subarray(0, body.length - 1))],
  ] as const) {
    t.match(
      await codec.decode(withId(9, bad)).catch((e) => e),
      { code: 'UNDECODABLE_RECORD', message: new RegExp(what) },
      what,
    )
  }
})

t.test('encode writes the wire format, also for a record larger than its scratch space', async (t) => {
  let next = 40
  const codec = new Codec({ register: async () => ({ id: next++ }) } as any)
  const id = (await codec.register({ events: 'e', identifies: 'i', accounts: 'a', dlq: 'd' } as any)).get('Plan')
  const plan = (name: string, limit: number) => ({
    name,
    requests_per_minute: 100,
    events_per_second: 10,
    events_per_month: limit,
    emails_per_month: 0,
    updated_at: 1,
  })
  for (const value of [plan('small', 5), plan('x'.repeat(200_000), 7)]) {
    const buf = codec.encode('Plan', value)
    t.equal(buf[0], 0, 'magic byte')
    t.equal(buf.readInt32BE(1), id, 'schema id')
    t.same(
      buf.subarray(5),
      avro.Type.forSchema(loadAvsc('Plan') as any).toBuffer(value),
      'the Avro body, nothing after it',
    )
  }
  // The scratch space is reused: an earlier, longer record leaves nothing in a later one.
  const a = codec.encode('Plan', plan('a'.repeat(100), 1))
  const b = codec.encode('Plan', plan('b', 2))
  t.not(a.length, b.length)
  t.same((await codec.decode(b)).value, plan('b', 2))
})

t.test('A15: the transcoder layout covers the current schema and the one before enc, not older ones', async (t) => {
  const { readFileSync } = await import('node:fs')
  const history = (f: string) => JSON.parse(readFileSync(new URL(`./avro/history/${f}`, import.meta.url), 'utf8'))
  const byId: Record<number, unknown> = {
    1: history('event.v1.avsc'),
    2: history('event.v2.avsc'),
    3: loadAvsc('Event'),
  }
  const codec = codecWhoseRegistry(async () => byId[(codec as any).asking])
  for (const id of [1, 2, 3]) {
    ;(codec as any).asking = id
    await codec.decode(withId(id, Buffer.alloc(200))).catch(() => undefined)
  }
  t.equal(codec.readerLayout(withId(3)), 'Event', 'the current schema')
  t.equal(codec.readerLayout(withId(2)), 'Event', 'v2: the same bytes up to enc')
  t.equal(codec.readerLayout(withId(1)), undefined, 'v1 lacks anonymous_id: general path')
})
