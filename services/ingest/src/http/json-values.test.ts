// The bound on parse work (H25): bodies at the limits with the most structure a valid request can hold
// pass; junk outside the events, and more structure than 100 events of 32 KB can hold, do not.
import t from 'tap'
import { jsonValuesProblem, maxValues, ENVELOPE_VALUES } from './json-values.js'
import { MAX_BATCH_ITEMS, MAX_EVENT_BYTES } from '../validation/schemas.js'

/** An event of about `bytes` bytes of JSON made of many small properties (a valid event's worst case). */
function denseEvent(bytes: number, batch: boolean): Record<string, unknown> {
  const properties: Record<string, number> = {}
  const base = batch ? { type: 'event', event: 'x', user: { id: 'u' } } : { event: 'x', user: { id: 'u' } }
  let size = JSON.stringify({ ...base, properties }).length
  for (let i = 0; ; i++) {
    const key = i.toString(36)
    if (size + key.length + 5 > bytes) break // "key":0,
    properties[key] = 0
    size += key.length + 5
  }
  return { ...base, properties }
}

t.test('bodies of at most 64 KiB are not scanned: their parse is cheap whatever they hold', async (t) => {
  t.equal(jsonValuesProblem(`{"junk":[${'{},'.repeat(20_000)}{}]}`, 'batch'), undefined)
  t.ok(jsonValuesProblem(`{"junk":[${'{},'.repeat(22_000)}{}]}`, 'batch'))
})

t.test('valid requests at the limits pass', async (t) => {
  const single = JSON.stringify(denseEvent(MAX_EVENT_BYTES, false))
  t.ok(Buffer.byteLength(single) <= MAX_EVENT_BYTES)
  t.equal(jsonValuesProblem(single, 'single'), undefined, 'a 32 KB event of small properties')
  const item = denseEvent(MAX_EVENT_BYTES, true)
  const batch = { sent_at: '2025-01-01T00:00:00Z', events: Array.from({ length: MAX_BATCH_ITEMS }, () => item) }
  // Pretty-printed to near the 10 MB limit: whitespace costs nothing.
  const text = JSON.stringify(batch, null, 3)
  t.ok(text.length > 8_000_000, `${text.length} characters`)
  t.equal(jsonValuesProblem(text, 'batch'), undefined, '100 events of 32 KB of small properties')
  t.equal(
    jsonValuesProblem(JSON.stringify({ ...batch, context: { library: { name: 'sdk', version: '1' } } }), 'batch'),
    undefined,
    'a few unknown envelope fields',
  )
  t.equal(
    jsonValuesProblem('{"sent_at":"x","events":[{"s":"\\"}{[,:\\\\"}]}', 'batch'),
    undefined,
    'strings with escapes and structure inside',
  )
})

t.test('junk outside the events is refused; so is more than 100 events could hold', async (t) => {
  const junk = `{"sent_at":"2025-01-01T00:00:00Z","events":[{"type":"event","event":"x","user":{"id":"u"}}],"junk":[${'{},'.repeat(3_000_000)}{}]}`
  t.same(jsonValuesProblem(junk, 'batch'), { path: '', max: ENVELOPE_VALUES })
  const before = `{"junk":[${'{},'.repeat(30_000)}{}],"events":[]}`
  t.same(jsonValuesProblem(before, 'batch'), { path: '', max: ENVELOPE_VALUES }, 'before the events too')
  const inItems = `{"sent_at":"x","events":[${'{},'.repeat(2_000_000)}{}]}`
  t.same(jsonValuesProblem(inItems, 'batch'), { path: '/events', max: maxValues('batch').events })
  t.same(jsonValuesProblem(`{"event":"x","p":[${'0,'.repeat(MAX_EVENT_BYTES)}0]}`, 'single'), {
    path: '',
    max: MAX_EVENT_BYTES,
  })
  t.same(
    jsonValuesProblem(`[${'[],'.repeat(30_000)}[]]`, 'batch'),
    { path: '', max: ENVELOPE_VALUES },
    'a top-level array',
  )
})

t.test('an escaped "events" key is the events key; a lookalike is not', async (t) => {
  const items = `[${'{},'.repeat(30_000)}{}]`
  t.equal(jsonValuesProblem(`{"sent_at":"x","\\u0065vents":${items}}`, 'batch'), undefined)
  t.ok(jsonValuesProblem(`{"sent_at":"x","eventz":${items}}`, 'batch'))
  t.ok(jsonValuesProblem(`{"sent_at":"x","x":{"events":${items}}}`, 'batch'), 'events below the top level is envelope')
})
