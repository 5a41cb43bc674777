// A15 against the real stack: with PRIVACY_ENCRYPT on, what ingest appends to the event topics holds no
// personal data in clear (every record type, our contract's and Segment's), its Kafka key holds a
// pseudonym, and every data key a record names is on the keys topic, wrapped, once the request has its 200.
import t from 'tap'
import { startServices } from '../support/harness.js'
import { readTopic, type RawRecord } from '../support/read-topic.js'
import { unwrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'

const MARK = `mk${Date.now().toString(36)}q`
/** The marker in every encoding a record might carry it in. */
const encodings = (s: string) => [s, Buffer.from(s).toString('base64'), Buffer.from(s).toString('hex')]
const holds = (r: RawRecord, s: string) =>
  [r.key, r.value].some((b) => b !== null && encodings(s).some((e) => b.includes(Buffer.from(e))))

t.test('sealed records on the event topics, their keys stored first', async (t) => {
  const s = await startServices(t, { projector: false, env: { PRIVACY_ENCRYPT: 'true' } })
  const { key } = await s.createKey({ type: 'live' })
  const user = { id: `${MARK}-user`, email: `${MARK}@example.com`, traits: { name: `${MARK}-name` } }
  const props = { note: `${MARK}-prop` }
  const ok = (r: { status: number }, what: string) => t.equal(r.status, 200, what)
  ok(await s.post('/v1/event', { event: 'opened', user, properties: props }, { key }), '/v1/event')
  const sent_at = new Date().toISOString()
  const events = [
    { type: 'event', event: 'paid', user, properties: props },
    { type: 'identify', user, traits: { plan: `${MARK}-plan` } },
  ]
  ok(await s.post('/v1/events', { sent_at, events }, { key }), '/v1/events')
  const seg = { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }
  const base = { userId: user.id, context: { ip: '203.0.113.9', note: `${MARK}-ctx` } }
  ok(await s.post('/v1/track', { ...base, event: 'seg', properties: props, anonymousId: `${MARK}-anon` }, seg), 'track')
  ok(await s.post('/v1/identify', { ...base, traits: { email: `${MARK}@example.com` } }, seg), 'identify')
  ok(await s.post('/v1/alias', { ...base, previousId: `${MARK}-prev` }, seg), 'alias')
  ok(await s.post('/v1/group', { ...base, groupId: `${MARK}-group`, traits: { n: MARK } }, seg), 'group')

  const records = [...(await readTopic(s.kafka, s.topics.events)), ...(await readTopic(s.kafka, s.topics.identifies))]
  t.equal(records.length, 7, 'every accepted item is on its topic')
  t.same(
    records.filter((r) => holds(r, MARK)).map((r) => r.value?.toString('latin1')),
    [],
    'no record holds the marker, plain, base64 or hex',
  )
  const keys = await readTopic(s.kafka, s.topics.keys!)
  const master = loadIngestConfig(s.env).privacy.masterKey
  const stored = new Map(keys.map((k) => [k.key!.toString(), unwrapDataKey(master, k.key!.toString(), k.value!)]))
  t.equal(stored.size, 1, 'one person, one month: one data key')
  const [keyId] = [...stored.keys()]
  for (const r of records) {
    t.ok(r.value!.includes(Buffer.from(keyId!)), 'each record names the stored key')
    t.equal(r.key!.toString(), keyId!.split('\u0000').slice(0, 2).join('\u0000'), 'keyed by account and pseudonym')
  }
})
