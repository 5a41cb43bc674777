// A15: CPU of ingest's sealing step alone (RecordSealer.seal: pseudonym, data key, encryptPersonalFields),
// per event, with warm caches (every person's key already minted: the steady state). Run it under
// farm-bench against SEAL=0, which builds the same records and skips the step, and divide the CPU
// difference by the events:
//   farm-bench -n 2 --vs 'env SEAL=0 npx tsx bench/seal-cost.ts' -- env SEAL=1 npx tsx bench/seal-cost.ts
// BATCH=1 is /v1/event (one record a request), BATCH=100 /v1/events (one person's 100 records a request).
import { RecordSealer, type SealInput } from '../services/ingest/src/privacy/record-sealer.js'
import { makeEvent } from '../test/support/clickhouse-helpers.js'

const EVENTS = Number(process.env.EVENTS ?? 200_000)
const BATCH = Number(process.env.BATCH ?? 1)
const PEOPLE = 2_000
const seal = process.env.SEAL === '1'
const sealer = new RecordSealer(Buffer.alloc(32, 1), async () => {}, 100_000)
const props = JSON.stringify({ path: '/pricing', referrer: 'https://example.com/a', plan: 'pro', items: [1, 2, 3] })
const context = JSON.stringify({ ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', locale: 'en-US' })

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
    }),
  }))
}

async function main() {
  let sink = 0
  for (let i = 0; i < EVENTS / BATCH; i++) {
    const items = request(i)
    if (seal) sink += (await sealer.seal(items)).length
    else sink += items.length
  }
  if (sink !== EVENTS) throw new Error('lost events')
}

await main()
