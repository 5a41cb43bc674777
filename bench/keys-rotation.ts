// A35's costs at the scale of millions of people: a keys topic of its own filled with `keys` data keys
// wrapped by one master, as ingest writes them; then, in order, what a rotation runs over it, each timed with
// this process's CPU and its heap's peak:
//   1. the projector's holder (KeysFollower) reading every key with that master alone, and with a ring of
//      the new master and it (each key tried against the new one first, then in the last opener's order);
//   2. `rewrap --check`, then `rewrap` (every key written again under the new master);
//   3. the holder with both masters again, and with the new master alone, before the cleaner dropped the
//      old copies (each old copy then fails once and is replaced by the key's next record, A35).
//   node --expose-gc --import tsx bench/keys-rotation.ts [keys]
// Against the running stack (bench/processes.ts's stackEnv); the topic is deleted at the end.
import { randomBytes } from 'node:crypto'
import { createKafka, createProducer } from '../services/shared/src/kafka/client.js'
import { MasterKeyRing, newKeyId, wrapDataKey } from '../services/shared/src/privacy/crypto/index.js'
import { createLogger } from '../services/shared/src/log.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { KeysFollower } from '../services/projector/src/privacy/keys-holder.js'
import { rewrap } from '../scripts/privacy/rewrap.js'
import { sendAll, stackEnv } from './processes.js'

const KEYS = Number(process.argv[2] ?? 1_000_000)
const topic = `bench.${randomBytes(4).toString('hex')}.keys`
const cfg = loadProjectorConfig(stackEnv(process.env as Record<string, string>))
const log = createLogger('warn', { service: 'bench' })
const kafka = createKafka({ ...cfg.kafka, clientId: 'bench-keys-rotation' }, log)
const say = (line: string) => process.stderr.write(`${line}\n`)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined)
const old = randomBytes(32)
const current = randomBytes(32)
const ACCOUNTS = 20
const keyId = (i: number) => newKeyId(`bench_acct_${i % ACCOUNTS}`, i.toString(16).padStart(32, '0'), '2026-11')

/** Runs `step`, then prints its wall and CPU seconds and how far the heap grew over its start. */
async function timed<T>(name: string, step: () => Promise<T>): Promise<T> {
  gc()
  const heap0 = process.memoryUsage().heapUsed
  let peak = heap0
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed)
  }, 100)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  try {
    return await step()
  } finally {
    clearInterval(sampler)
    const sec = (performance.now() - t0) / 1000
    const cpu = process.cpuUsage(cpu0)
    const cpuSec = (cpu.user + cpu.system) / 1e6
    process.stdout.write(
      `${name}: ${sec.toFixed(1)} s, CPU ${cpuSec.toFixed(1)} s (${((cpuSec * 1e6) / KEYS).toFixed(1)} µs a key), heap peak +${((peak - heap0) / 1e6).toFixed(0)} MB\n`,
    )
  }
}

async function holderReads(masters: MasterKeyRing): Promise<string> {
  const keys = new KeysFollower(kafka, topic, masters, log, cfg.openCacheEntries)
  try {
    await keys.start()
    await keys.holder.caughtUp()
    return `${keys.holder.size} keys held`
  } catch (err) {
    return `stopped: ${(err as Error).message}`
  } finally {
    await keys.stop()
  }
}

const admin = kafka.admin()
await admin.connect()
const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 })
await producer.connect()
try {
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
  const t0 = performance.now()
  await sendAll(kafka, topic, KEYS, (i) => {
    const id = keyId(i)
    return { key: id, value: wrapDataKey(old, id, randomBytes(32)) }
  })
  say(
    `keys-rotation: ${KEYS.toLocaleString('en-US')} keys written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  const both = () => new MasterKeyRing(current, [old])
  say(await timed('holder, the old master alone (before a rotation)', () => holderReads(new MasterKeyRing(old))))
  say(await timed('holder, new and old masters (rotating, before rewrap)', () => holderReads(both())))
  const deps = { kafka, producer, topic, masters: both(), note: say, progressMs: 5000 }
  say(JSON.stringify(await timed('rewrap --check', () => rewrap(deps, { check: true }))))
  say(JSON.stringify(await timed('rewrap', () => rewrap(deps, { check: false }))))
  say(await timed('holder, new and old masters (after rewrap, old copies served)', () => holderReads(both())))
  say(
    await timed('holder, the new master alone (after rewrap, old copies served)', () =>
      holderReads(new MasterKeyRing(current)),
    ),
  )
} finally {
  await producer.disconnect()
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
  await admin.disconnect()
}
