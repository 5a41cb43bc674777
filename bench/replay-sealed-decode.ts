// A21, A24: the replay's decode step alone over bench/replay-sealed.ts's records, sealed against clear, in
// one process (process.cpuUsage, A B A B), so the shared machine's load falls on both alike. Each round
// starts as a replay does: a holder that has read every key (nothing asked for yet) and a new transcoder;
// then every record goes through the transcoder with the opener, as the decode step calls it
// (consume/projection.ts). A record the transcoder leaves (none of these) would be counted, not decoded.
//   npx tsx bench/replay-sealed-decode.ts [records] [persons]
// OPEN=entries: the open cache's size (default: the replay's, replayOpenEntries); BENCH_SEALER_ENTRIES as in
// bench/replay-sealed.ts (its default: one key a person; 100000 with 100,000 persons: one key a record).
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { Codec } from '../schemas/codec.js'
import type { EventRecord } from '../schemas/records.js'
import { RecordSealer, type SealInput, type WrappedKey } from '../services/ingest/src/privacy/record-sealer.js'
import { EventTranscoder } from '../services/projector/src/clickhouse/event-transcoder.js'
import { newArenas } from '../services/projector/src/clickhouse/prepared.js'
import { KeysHolder } from '../services/projector/src/privacy/keys-holder.js'
import { MasterKeyRing } from '../services/shared/src/privacy/crypto/index.js'
import { RecordOpener } from '../services/projector/src/privacy/record-opener.js'
import { replayOpenEntries } from '../services/projector/src/privacy/recent-keys.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { personEvent, personOf, sealerEntries } from './replay-sealed.js'

const RECORDS = Number(process.argv[2] ?? 300_000)
const PERSONS = Number(process.argv[3] ?? 100_000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
/** The topic's shape, as bench/replay-sealed.ts's SESSIONS (personOf). */
const SESSIONS = Number(process.env.SESSIONS ?? 0)
const master = Buffer.alloc(32, 7)
const codec = new Codec({ register: async () => ({ id: 1 }), getSchema: async () => ({}) } as never)
await codec.register({ events: 'e', identifies: 'i', accounts: 'a', keys: 'k' } as never)

async function fill(): Promise<{ clear: Buffer[]; sealed: Buffer[]; keys: WrappedKey[] }> {
  const keys: WrappedKey[] = []
  const sealer = new RecordSealer(
    master,
    async (minted) => void keys.push(...minted),
    sealerEntries(PERSONS, process.env),
  )
  const monthStart = Date.UTC(2026, 9, 1)
  const clear: Buffer[] = []
  const sealed: Buffer[] = []
  for (let sent = 0; sent < RECORDS; sent += 5_000) {
    const events = Array.from({ length: Math.min(5_000, RECORDS - sent) }, (_, j) =>
      personEvent(sent + j, personOf(sent + j, RECORDS, PERSONS, SESSIONS), monthStart),
    )
    for (const e of events) clear.push(codec.encode('Event', e))
    const items: SealInput[] = events.map((record) => ({ kind: 'event', record }))
    for (const s of await sealer.seal<EventRecord>(items)) sealed.push(codec.encode('Event', s.record))
  }
  return { clear, sealed, keys }
}

async function decodeAll(
  values: Buffer[],
  keys: WrappedKey[],
  session?: Session,
): Promise<{ us: number; left: number }> {
  const cfg = loadProjectorConfig(process.env)
  const holder = new KeysHolder(new MasterKeyRing(master), async () => 0n, cfg.openCacheEntries)
  holder.apply(
    keys.map((k, i) => ({ id: k.id, wrapped: k.wrapped, offset: BigInt(i) })),
    BigInt(keys.length),
  )
  // As the replay sizes it (replay/index.ts), unless OPEN names a size.
  holder.holdOpened(
    Number(process.env.OPEN ?? replayOpenEntries(holder.size, cfg.openCacheEntries, cfg.replayOpenCacheEntries)),
  )
  const opener = new RecordOpener(holder)
  const transcoder = new EventTranscoder()
  const arenas = newArenas()
  let left = 0
  await session?.post('Profiler.start')
  const t0 = process.cpuUsage()
  for (const v of values) if (transcoder.transcode(v, arenas, null, opener) === null) left++
  const t = process.cpuUsage(t0)
  if (session !== undefined)
    writeFileSync(process.env.PROFILE!, JSON.stringify((await session.post('Profiler.stop')).profile))
  return { us: (t.user + t.system) / values.length, left }
}

const { clear, sealed, keys } = await fill()
process.stdout.write(`${RECORDS} records of ${PERSONS} persons, ${keys.length} keys\n`)
await decodeAll(clear, keys)
await decodeAll(sealed, keys)
// PROFILE=file.cpuprofile: a V8 profile of the last sealed round's loop alone (bench/profile-summary.ts).
const session = process.env.PROFILE ? new Session() : undefined
session?.connect()
await session?.post('Profiler.enable')
for (let r = 0; r < ROUNDS; r++) {
  // ONLY=sealed (for a --cpu-prof of the sealed step): the clear rounds are skipped.
  const c = process.env.ONLY === 'sealed' ? { us: 0, left: 0 } : await decodeAll(clear, keys)
  const s = await decodeAll(sealed, keys, r === ROUNDS - 1 ? session : undefined)
  process.stdout.write(
    `round ${r}: clear ${c.us.toFixed(2)} µs, sealed ${s.us.toFixed(2)} µs a record (left to the general path: ${c.left}, ${s.left})\n`,
  )
}
