// A16: memory the projector's keys holder needs a key (key-table.ts), heap + arrayBuffers after GC, at
// KEYS keys (1M and 10M in BENCHMARKS.md). Keys are added as the holder adds them (one at a time, the
// table growing), ids shaped as A15's (account NUL pseudonym NUL month NUL generation).
//   node --expose-gc --import tsx bench/key-table.ts   (KEYS=10000000 for the larger figure)
// A21: OPENED=100000 then opens one sealed body with each of that many keys, held as the decode step holds
// them (recent-keys.ts, each with its continued decipher), and reports what that adds, heap and RSS (the
// decipher contexts live outside the heap).
import { randomBytes } from 'node:crypto'
import { KeyTable } from '../services/projector/src/privacy/key-table.js'
import { RecentKeys } from '../services/projector/src/privacy/recent-keys.js'
import { KeyStream, openStream } from '../services/shared/src/privacy/crypto/index.js'

const KEYS = Number(process.env.KEYS ?? 1_000_000)
const OPENED = Number(process.env.OPENED ?? 0)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc')

function used(): number {
  gc!()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

const before = used()
const table = new KeyTable()
const key = randomBytes(32)
const idOf = (i: number) =>
  `acct-${i % 1000}\u0000${i.toString(36).padStart(32, 'x')}\u00002026-11\u0000${(i * 7919).toString(16)}`
const t0 = process.hrtime.bigint()
for (let i = 0; i < KEYS; i++) table.set(idOf(i), key)
const ms = Number(process.hrtime.bigint() - t0) / 1e6
const after = used()
const rssBefore = process.memoryUsage().rss
const recent = new RecentKeys(OPENED)
const body = new KeyStream(key).seal('x'.repeat(450))
for (let i = 0; i < OPENED; i++) {
  const held = table.get(idOf(i))!
  recent.add(idOf(i), held)
  openStream(held, body)
}
const opened = used() - after
const openedRss = process.memoryUsage().rss - rssBefore
console.log(
  JSON.stringify({
    keys: table.size,
    bytes: after - before,
    bytesPerKey: Math.round((after - before) / table.size),
    tableBytes: table.bytes,
    insertMs: Math.round(ms),
    opened: recent.size,
    openedBytesPerKey: Math.round(opened / Math.max(1, recent.size)),
    openedRssPerKey: Math.round(openedRss / Math.max(1, recent.size)),
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  }),
)
