// A36: what opening a wrapped data key costs, with Node's AES-256-GCM one key at a time (data-key.ts's
// unwrapDataKey, as every open was before A36) against the batched opener (wrapped-key-opener.ts), a batch at
// a time (openAll, as the keys holder opens a fetched batch) and one key at a time (open, as rewrap does).
// Keys and ids shaped as ingest mints them; CPU of this process a key, the three in turn each round.
//   npx tsx bench/key-unwrap.ts [keys] [rounds]
import { randomBytes } from 'node:crypto'
import { newKeyId, unwrapDataKey, wrapDataKey } from '../services/shared/src/privacy/crypto/index.js'
import { WrappedKeyOpener } from '../services/shared/src/privacy/crypto/wrapped-key-opener.js'

const KEYS = Number(process.argv[2] ?? 200_000)
const ROUNDS = Number(process.argv[3] ?? 4)
const master = randomBytes(32)
const ids = Array.from({ length: KEYS }, (_, i) =>
  newKeyId(`bench_acct_${i % 20}`, i.toString(16).padStart(32, '0'), '2026-11'),
)
const wrapped = ids.map((id) => wrapDataKey(master, id, randomBytes(32)))
const opener = new WrappedKeyOpener(master)
const out: (Buffer | undefined)[] = new Array(KEYS)

function cpu(step: () => void): string {
  const t0 = process.cpuUsage()
  step()
  const t = process.cpuUsage(t0)
  return ((t.user + t.system) / KEYS).toFixed(2)
}

for (let r = 0; r < ROUNDS; r++) {
  const node = cpu(() => {
    for (let i = 0; i < KEYS; i++) unwrapDataKey(master, ids[i]!, wrapped[i]!)
  })
  const batch = cpu(() => opener.openAll(ids, wrapped, out))
  const single = cpu(() => {
    for (let i = 0; i < KEYS; i++) opener.open(ids[i]!, wrapped[i]!)
  })
  process.stdout.write(`round ${r}: Node ${node} µs a key, batched ${batch}, one at a time ${single}\n`)
}
