// A16: memory the projector's keys holder needs a key (key-table.ts), heap + arrayBuffers after GC, at
// KEYS keys (1M and 10M in BENCHMARKS.md). Keys are added as the holder adds them (one at a time, the
// table growing), ids shaped as A15's (account NUL pseudonym NUL month NUL generation).
//   node --expose-gc --import tsx bench/key-table.ts   (KEYS=10000000 for the larger figure)
import { randomBytes } from 'node:crypto'
import { KeyTable } from '../services/projector/src/privacy/key-table.js'

const KEYS = Number(process.env.KEYS ?? 1_000_000)
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
const t0 = process.hrtime.bigint()
for (let i = 0; i < KEYS; i++)
  table.set(
    `acct-${i % 1000}\u0000${i.toString(36).padStart(32, 'x')}\u00002026-11\u0000${(i * 7919).toString(16)}`,
    key,
  )
const ms = Number(process.hrtime.bigint() - t0) / 1e6
const after = used()
console.log(
  JSON.stringify({
    keys: table.size,
    bytes: after - before,
    bytesPerKey: Math.round((after - before) / table.size),
    tableBytes: table.bytes,
    insertMs: Math.round(ms),
  }),
)
