// H9, H13, H26, as a property test: whatever ingest validation accepts must map to ClickHouse rows.
// Random bodies (seeded, so a failure repeats) go through the path a record takes: validation,
// toEventRecord/toIdentifyRecord, the Avro round trip, then the projector's row mapping, which
// must never throw, and must produce only values ClickHouse 18.16 takes (DateTime text within
// 1970-01-01 .. 2105-12-31, no unpaired surrogate, which its JSON parser refuses).
// A pure test: no servers.
import t from 'tap'
import avro from 'avsc'
import { loadAvsc } from '../../schemas/codec.js'
import { validateBatch, validateSingle, type Item } from '../../services/ingest/src/validation/index.js'
import {
  EventIds,
  toEventRecord,
  toIdentifyRecord,
  type RequestContext,
} from '../../services/ingest/src/records/index.js'
import {
  eventRow,
  eventTraitRows,
  identifyRow,
  identifyTraitRows,
} from '../../services/projector/src/clickhouse/rows.js'

// mulberry32: small seeded generator
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const LONE = JSON.parse('"\\ud800"') as string
const TRAIL = JSON.parse('"\\udfff"') as string
const GOOD = ['a', 'signup', 'ü', '😀', '\\', '"', '~/', '__proto__', 'constructor', 'x'.repeat(255)]
const BAD = ['', LONE, `x${TRAIL}`, '\u0000', '\u001f', 'a'.repeat(300)]
const YEARS = [0, 1, 99, 1900, 1969, 1970, 1971, 2000, 2024, 2025, 2105, 2106, 2200, 9999]
const INFINITY_MARK = 987654321.25

t.test('validated items always map to storable rows', async (t) => {
  const random = rng(9)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const int = (n: number) => Math.floor(random() * n)
  const str = () => (random() < 0.9 ? pick(GOOD) : pick(BAD))
  const two = (n: number) => String(n).padStart(2, '0')
  const timestamp = () => {
    const y = String(pick(YEARS)).padStart(4, '0')
    const zone = pick(['', 'Z', '+01:00', '-12:00', '+23:59'])
    const frac = pick(['', '.5', '.123', '.123456789'])
    return `${y}-${two(1 + int(12))}-${two(1 + int(28))}T${two(int(24))}:${two(int(60))}:${two(int(60))}${frac}${zone}`
  }
  const value = (depth: number): unknown => {
    const k = int(depth > 2 ? 4 : 7)
    if (k === 0) return str()
    if (k === 1) return pick([0, -0, 1.5, 2 ** 53 + 1, 1e308, -1e308, INFINITY_MARK])
    if (k === 2) return pick([true, false, null])
    if (k === 3) return timestamp()
    if (k === 4 || k === 5) {
      const o: Record<string, unknown> = {}
      for (let i = int(4); i > 0; i--)
        Object.defineProperty(o, str(), {
          value: value(depth + 1),
          enumerable: true,
          configurable: true,
          writable: true,
        })
      return o
    }
    return Array.from({ length: int(3) }, () => value(depth + 1))
  }
  // A long chain, so some bodies cross the nesting limit.
  const maybeDeep = () => {
    let v = value(0)
    const levels = random() < 0.9 ? 0 : pick([5, 31, 32, 33, 200])
    for (let i = 0; i < levels; i++) v = { n: v }
    return v
  }
  const maybe = <T>(f: () => T): T | undefined => (random() < 0.5 ? f() : undefined)
  const user = () =>
    random() < 0.95 ? { id: str(), email: maybe(str), traits: maybe(maybeDeep) } : pick<unknown>([str(), null])
  const item = () => ({
    type: pick(['event', 'event', 'identify']),
    event: maybe(() => str()),
    name: maybe(() => str()),
    user: user(),
    timestamp: maybe(() => (random() < 0.95 ? timestamp() : pick<unknown>([5, '2024-02-30T00:00:00Z']))),
    properties: maybe(maybeDeep),
    context: maybe(maybeDeep),
    traits: maybe(maybeDeep),
    message_id: maybe(() => str()),
  })
  // Through JSON text, as a request body arrives; the mark becomes a number JSON.parse reads as Infinity.
  const wire = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(String(INFINITY_MARK), '1e400'))

  const codec = {
    Event: avro.Type.forSchema(loadAvsc('Event') as any),
    Identify: avro.Type.forSchema(loadAvsc('Identify') as any),
  }
  const storableText = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)
  const problems: string[] = []
  let accepted = 0
  let refused = 0
  const ids = new EventIds()
  const check = (it: Item, rc: RequestContext, body: unknown) => {
    try {
      const rows: object[] = []
      if (it.kind === 'event') {
        const r = codec.Event.fromBuffer(codec.Event.toBuffer(toEventRecord(it, rc, ids)))
        rows.push(eventRow(r), ...eventTraitRows(r))
      } else {
        const r = codec.Identify.fromBuffer(codec.Identify.toBuffer(toIdentifyRecord(it, rc, ids)))
        rows.push(identifyRow(r), ...identifyTraitRows(r))
      }
      for (const row of rows) {
        for (const [col, v] of Object.entries(row)) {
          if (typeof v === 'string' && !storableText(v)) throw new Error(`${col} holds an unpaired surrogate`)
          if (
            ['timestamp', 'received_at', 'set_at'].includes(col) &&
            !(v >= '1970-01-01 00:00:00' && v <= '2105-12-31 23:59:59')
          ) {
            throw new Error(`${col} ${v} is outside ClickHouse's DateTime`)
          }
        }
      }
      accepted++
    } catch (err) {
      if (problems.length < 5) problems.push(`${(err as Error).message}: ${JSON.stringify(body).slice(0, 300)}`)
    }
  }

  for (let n = 0; n < 3000; n++) {
    const receivedAt = Date.UTC(2020 + int(60), int(12), 1 + int(28), int(24))
    const rc = (sentAt: number | null): RequestContext => ({
      accountId: 'acc_1',
      environment: pick(['live', 'test'] as const),
      keyId: 'key_1',
      receivedAt,
      sentAt,
      ip: pick(['203.0.113.7', null]),
      userAgent: pick(['sdk/1.0', null, 'Mozilla\u00ff']),
    })
    const single = wire({ ...item(), type: undefined })
    const s = validateSingle(single, receivedAt)
    if (s.ok) check(s.item, rc(null), single)
    else refused++
    const batch = wire({ sent_at: timestamp(), events: Array.from({ length: 1 + int(4) }, item) })
    const b = validateBatch(batch, receivedAt)
    if (!b.ok) continue
    for (const r of b.items) {
      if (r.ok) check(r.item, rc(b.sentAtMs), batch.events[r.index])
      else refused++
    }
  }
  t.same(problems, [], 'every accepted item maps to rows ClickHouse takes')
  // The generator must exercise both sides, or the test could not fail.
  t.ok(accepted > 500, `${accepted} items accepted`)
  t.ok(refused > 500, `${refused} items refused`)
})
