// A15, A20: CPU of ingest's sealing step alone (RecordSealer: pseudonym, data key, the sealed record), per
// event, with warm caches (every person's key already minted: the steady state), called as the pipeline
// calls it (pipeline/accept-items.ts: `sealNow`, `seal` only when a key is missing). Run it under
// farm-bench against SEAL=0, which builds the same records and skips the step, and divide the CPU
// difference by the events:
//   farm-bench -n 2 --vs 'env SEAL=0 npx tsx bench/seal-cost.ts' -- env SEAL=1 npx tsx bench/seal-cost.ts
// BATCH=1 is /v1/event (one record a request), BATCH=100 /v1/events (one person's 100 records a request).
// ENCODE=1 also makes each Kafka record as the pipeline does (its key and its Avro value), in both runs, so
// the difference includes the sealed form's encoding. MICRO=1 runs both in one process, A B A B, ROUNDS
// times, and prints the CPU difference per event of each pair (process.cpuUsage: no start-up in it).
// MEMORY=1 (with node --expose-gc) seals one event for each of HELD people (100,000: the default
// PRIVACY_KEY_CACHE_ENTRIES) and prints heap and RSS after a forced GC, against before.
import { Codec } from '../schemas/codec.js'
import { type EventRecord, userKey } from '../schemas/records.js'
import { RecordSealer, type SealInput } from '../services/ingest/src/privacy/record-sealer.js'
import { makeEvent } from '../test/support/clickhouse-helpers.js'

const EVENTS = Number(process.env.EVENTS ?? 200_000)
const BATCH = Number(process.env.BATCH ?? 1)
const ROUNDS = Number(process.env.ROUNDS ?? 4)
const PEOPLE = 2_000
const sealer = new RecordSealer(Buffer.alloc(32, 1), async () => {}, 100_000)
const props = JSON.stringify({ path: '/pricing', referrer: 'https://example.com/a', plan: 'pro', items: [1, 2, 3] })
const context = JSON.stringify({ ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', locale: 'en-US' })
const codec = new Codec({ register: async () => ({ id: 1 }), getSchema: async () => ({}) } as never)
const encode = process.env.ENCODE === '1'

function request(i: number): SealInput[] {
  const user = `user-${i % PEOPLE}`
  return Array.from({ length: BATCH }, () => ({
    kind: 'event' as const,
    record: makeEvent({
      account_id: 'acme',
      user_id: user,
      user_email: `${user}@example.com`,
      properties: props,
      context,
      // As services/ingest/src/records/to-record.ts fills them from the request (H14), so the record has the
      // fields and the personal text the length the HTTP path gives.
      ip: '203.0.113.7',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
      message_id: `msg-${i}`,
      anonymous_id: null,
    }),
  }))
}

/** As pipeline/accept-items.ts's outRecords: the clear key when the sealer gave none, the Avro value. */
function kafkaBytes(records: ReadonlyArray<{ key?: string; record: EventRecord }>): number {
  let n = 0
  for (const { key, record } of records)
    n += (key ?? userKey(record.account_id, record.user_id)).length + codec.encode('Event', record).length
  return n
}

async function run(seal: boolean): Promise<void> {
  let sink = 0
  for (let i = 0; i < EVENTS / BATCH; i++) {
    const items = request(i)
    const out = seal ? (sealer.sealNow<EventRecord>(items) ?? (await sealer.seal<EventRecord>(items))) : items
    sink += out.length
    if (encode) kafkaBytes(out as Array<{ key?: string; record: EventRecord }>)
  }
  if (sink !== EVENTS) throw new Error('lost events')
}

async function cpuOf(seal: boolean): Promise<number> {
  const start = process.cpuUsage()
  await run(seal)
  const d = process.cpuUsage(start)
  return d.user + d.system
}

async function micro(): Promise<void> {
  await run(true) // warm-up: every person's key minted, both paths compiled
  await run(false)
  for (let r = 0; r < ROUNDS; r++) {
    const a = await cpuOf(true)
    const b = await cpuOf(false)
    process.stdout.write(`round ${r}: sealing ${(a / EVENTS).toFixed(2)} µs, without ${(b / EVENTS).toFixed(2)} µs, `)
    process.stdout.write(`difference ${((a - b) / EVENTS).toFixed(2)} µs an event\n`)
  }
}

function memoryNow(): { heap: number; rss: number } {
  ;(globalThis as { gc?: () => void }).gc?.()
  const m = process.memoryUsage()
  return { heap: m.heapUsed + m.arrayBuffers, rss: m.rss }
}

async function memory(): Promise<void> {
  const held = Number(process.env.HELD ?? 100_000)
  const one = (i: number): SealInput[] => [
    { kind: 'event', record: makeEvent({ account_id: 'acme', user_id: `u${i}` }) },
  ]
  const before = memoryNow()
  for (let i = 0; i < held; i++) await sealer.seal([...one(i)])
  const after = memoryNow()
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB (${Math.round(n / held)} B a person sealed)`
  process.stdout.write(`${held} people: heap ${mb(after.heap - before.heap)}, RSS ${mb(after.rss - before.rss)}\n`)
}

await codec.register({ events: 'e', identifies: 'i', accounts: 'a', keys: 'k' } as never)
if (process.env.MEMORY === '1') await memory()
else if (process.env.MICRO === '1') await micro()
else await run(process.env.SEAL === '1')
