// An erasure's read of the keys topic at the scale of millions of people (privacy/keys-eraser.ts, A17): the
// tombstone step and every disk check read the whole topic (one record a person-month) to find one person's
// keys. Fills a keys topic of its own with `keys` records shaped as ingest writes them (an account, a
// pseudonym, a month, a stream generation; a wrapped key as the value), then times the scan as the eraser
// runs it for one person (only that person's records kept) and keeping every record (as it did before),
// with the heap what it kept holds when the scan ends.
// Then (A31) the read a batch of PEOPLE erasures makes (default 300): their keys found by trying each
// person's prefix in turn, as the disk check did, and by the key id's person part in a set, as it does now.
//   node --expose-gc --import tsx bench/keys-scan.ts [keys] [scans]
// Against the running stack (bench/processes.ts's stackEnv); the topic is deleted at the end.
import { randomBytes } from 'node:crypto'
import { createKafka } from '../services/shared/src/kafka/client.js'
import { type KeyEntry, type KeyMatch, liveKeyIds, scanKeys } from '../services/shared/src/privacy/keys-scan.js'
import { dataKeyId, newKeyId } from '../services/shared/src/privacy/crypto/index.js'
import { createLogger } from '../services/shared/src/log.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { personPartOf } from '../services/projector/src/privacy/person-keys.js'
import { sendAll, stackEnv } from './processes.js'

const KEYS = Number(process.argv[2] ?? 1_000_000)
const SCANS = Number(process.argv[3] ?? 2)
const PEOPLE = Number(process.env.PEOPLE ?? 300)
const topic = `bench.${randomBytes(4).toString('hex')}.keys`
const cfg = loadProjectorConfig(stackEnv(process.env as Record<string, string>))
const kafka = createKafka({ ...cfg.kafka, clientId: 'bench-keys-scan' }, createLogger('warn', { service: 'bench' }))
const say = (line: string) => process.stderr.write(`${line}\n`)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined)

/** Person `i`'s pseudonym (32 hex digits, as pseudonymOf gives) and its key id, made by ingest's own rule. */
const ACCOUNTS = 20
const MONTH = '2026-11'
const pseudonym = (i: number) => i.toString(16).padStart(32, '0')
const keyId = (i: number) => newKeyId(`bench_acct_${i % ACCOUNTS}`, pseudonym(i), MONTH)

const admin = kafka.admin()
await admin.connect()
try {
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
  const t0 = performance.now()
  const value = randomBytes(60)
  await sendAll(kafka, topic, KEYS, (i) => ({ key: keyId(i), value }))
  say(`keys-scan: ${KEYS.toLocaleString('en-US')} keys written in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  // The erasure's match: the person-month's id without a generation (dataKeyId).
  const p = Math.floor(KEYS / 2)
  const person = dataKeyId(`bench_acct_${p % ACCOUNTS}`, pseudonym(p), MONTH)
  // The whole topic kept (the eraser's read before it kept only what it matches), then one person's, in turn.
  gc()
  const heap0 = process.memoryUsage().heapUsed
  // A batch of erasures' people, spread over the topic, each by its prefix `account NUL pseudonym NUL`.
  const prefixes = Array.from({ length: PEOPLE }, (_, i) => {
    const k = Math.floor((i * KEYS) / PEOPLE)
    return `bench_acct_${k % ACCOUNTS}\u0000${pseudonym(k)}\u0000`
  })
  const people = new Set(prefixes)
  const scans: Array<[string, KeyMatch | undefined]> = [
    ['whole topic', undefined],
    ['one person', person],
    [`${PEOPLE} persons, prefix by prefix`, (id) => prefixes.some((x) => id.startsWith(x))],
    [`${PEOPLE} persons, by person part`, (id) => people.has(personPartOf(id))],
  ]
  for (let s = 0; s < SCANS; s++) {
    for (const [name, keep] of scans) {
      const start = performance.now()
      let entries: KeyEntry[] | undefined = await scanKeys(kafka, topic, keep)
      const sec = (performance.now() - start) / 1000
      gc()
      const heldMb = (process.memoryUsage().heapUsed - heap0) / 1e6
      const live = liveKeyIds(entries, person).length
      const kept = entries.length
      entries = undefined
      process.stdout.write(
        `scan ${s}, ${name}: ${kept.toLocaleString('en-US')} records kept of ${KEYS.toLocaleString('en-US')} in ${sec.toFixed(1)} s, heap they hold ${heldMb.toFixed(0)} MB, the person's live keys ${live}\n`,
      )
    }
  }
} finally {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
  await admin.disconnect()
}
