// What one `update` of a continued AES-256-CTR decipher costs (key-stream.ts's opening side, A18), with one
// key and with many keys in turn: whether a replay's many keys make each call dearer (cold cipher contexts),
// or Node's cost a call is the same either way. One process, the two alternating (A B A B), CPU a call.
//   npx tsx bench/decipher-calls.ts [keys] [body bytes]
import { createDecipheriv, randomBytes } from 'node:crypto'

const KEYS = Number(process.argv[2] ?? 100_000)
const BODY = Number(process.argv[3] ?? 445)
const CALLS = 100_000
const ROUNDS = Number(process.env.ROUNDS ?? 6)
const iv = Buffer.alloc(16)
const many = Array.from({ length: KEYS }, () => createDecipheriv('aes-256-ctr', randomBytes(32), iv))
const one = createDecipheriv('aes-256-ctr', randomBytes(32), iv)
const body = randomBytes(BODY)

function usPerCall(decipherOf: (i: number) => { update(b: Buffer): Buffer }): number {
  const t0 = process.cpuUsage()
  for (let i = 0; i < CALLS; i++) decipherOf(i).update(body)
  const t = process.cpuUsage(t0)
  return (t.user + t.system) / CALLS
}

const rounds: Array<{ one: number; many: number }> = []
for (let r = 0; r < ROUNDS; r++) rounds.push({ one: usPerCall(() => one), many: usPerCall((i) => many[i % KEYS]!) })
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ')
process.stdout.write(
  `${BODY}-byte bodies, µs a call, ${ROUNDS} rounds of ${CALLS} calls\n` +
    `  one key:          ${fmt(rounds.map((r) => r.one))}\n` +
    `  ${KEYS} keys in turn: ${fmt(rounds.map((r) => r.many))}\n`,
)
