// A2 against the real registry (Apicurio's Confluent-compatible API): subjects are registered with
// BACKWARD compatibility, re-registering returns the same id, a compatible change is accepted and
// an incompatible one is refused.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { Codec, createRegistry, loadAvsc, subjectsFor } from './codec.js'

const url = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'
const suffix = randomBytes(4).toString('hex')
const topics = {
  events: `t.${suffix}.events`,
  identifies: `t.${suffix}.identifies`,
  accounts: `t.${suffix}.accounts`,
  dlq: `t.${suffix}.dlq`,
}

t.test('schemas register once with stable ids and BACKWARD compatibility', async (t) => {
  const codec = new Codec(createRegistry(url))
  const first = await codec.register(topics)
  const again = await new Codec(createRegistry(url)).register(topics)
  t.same([...again], [...first], 'the same ids on a second registration')
  for (const { subject } of subjectsFor(topics)) {
    const res = await fetch(`${url}/config/${encodeURIComponent(subject)}`)
    t.equal((await res.json()).compatibilityLevel, 'BACKWARD', `${subject} is BACKWARD`)
  }
  const buf = codec.encode('Plan', {
    name: 'p',
    requests_per_minute: 1,
    events_per_second: 2,
    events_per_month: 3,
    emails_per_month: 4,
    updated_at: 5,
  })
  const decoded = await new Codec(createRegistry(url)).decode(buf)
  t.equal(decoded.name, 'Plan', 'a fresh codec resolves the writer schema from the registry by id')
  t.equal(decoded.value.events_per_month, 3)
})

t.test('the registry refuses a breaking change and accepts a compatible one', async (t) => {
  const subject = `${topics.events}-value`
  const check = async (schema: unknown) => {
    const res = await fetch(`${url}/compatibility/subjects/${encodeURIComponent(subject)}/versions/latest`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: JSON.stringify(schema), schemaType: 'AVRO' }),
    })
    return (await res.json()).is_compatible
  }
  const broken = loadAvsc('Event')
  ;(broken.fields as any[]).push({ name: 'tenant', type: 'string' })
  t.equal(await check(broken), false, 'a new required field is not BACKWARD compatible')
  const fine = loadAvsc('Event')
  ;(fine.fields as any[]).push({ name: 'tenant', type: ['null', 'string'], default: null })
  t.equal(await check(fine), true, 'an optional field with a default is')
})
