// A34: how long the live projector's keys holder takes to start at scale, reading the keys topic whole
// (as before) against its recent part first (the keys written since the start of the previous month; the
// older ones follow in the background). Fills a keys topic of its own with OLD keys written long ago (their
// Kafka timestamps set to 2025-06-01) and RECENT keys written now, each wrapped with a master key as ingest
// writes them, then starts a KeysFollower each way in turn (A B A B): seconds until start() resolves (when
// the projector starts consuming), and until caughtUp() (every key held), with this process's CPU.
//   npx tsx bench/keys-start.ts [old keys] [recent keys]      (ROUNDS=n, default 2)
// Against the running stack (bench/processes.ts's stackEnv); the topic is deleted at the end.
import { randomBytes } from 'node:crypto'
import { createKafka } from '../services/shared/src/kafka/client.js'
import { MasterKeyRing, newKeyId, wrapDataKey } from '../services/shared/src/privacy/crypto/index.js'
import { createLogger } from '../services/shared/src/log.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { KeysFollower, recentKeysSince } from '../services/projector/src/privacy/keys-holder.js'
import { sendAll, stackEnv } from './processes.js'

const OLD = Number(process.argv[2] ?? 2_000_000)
const RECENT = Number(process.argv[3] ?? 100_000)
const ROUNDS = Number(process.env.ROUNDS ?? 2)
const LONG_AGO = Date.UTC(2025, 5, 1)
const topic = `bench.${randomBytes(4).toString('hex')}.keys`
const cfg = loadProjectorConfig(stackEnv(process.env as Record<string, string>))
const log = createLogger('warn', { service: 'bench' })
const kafka = createKafka({ ...cfg.kafka, clientId: 'bench-keys-start' }, log)
const master = randomBytes(32)
const say = (line: string) => process.stderr.write(`${line}\n`)

const admin = kafka.admin()
await admin.connect()
try {
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
  const t0 = performance.now()
  for (const [count, at, month] of [
    [OLD, LONG_AGO, '2025-06'],
    [RECENT, Date.now(), '2026-12'],
  ] as const)
    await sendAll(kafka, topic, count, (i) => {
      const id = newKeyId(`bench_acct_${i % 20}`, i.toString(16).padStart(32, '0'), month)
      return { key: id, value: wrapDataKey(master, id, randomBytes(32)), timestamp: String(at) }
    })
  say(
    `keys-start: ${OLD.toLocaleString('en-US')} old and ${RECENT.toLocaleString('en-US')} recent keys written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )

  const rows: string[] = []
  for (let r = 0; r < ROUNDS; r++)
    for (const recentFirst of [false, true]) {
      const keys = new KeysFollower(kafka, topic, new MasterKeyRing(master), log, cfg.openCacheEntries, {
        recentSince: recentFirst ? recentKeysSince(Date.now()) : undefined,
      })
      const cpu0 = process.cpuUsage()
      const start = performance.now()
      await keys.start()
      const started = (performance.now() - start) / 1000
      const cpuStarted = process.cpuUsage(cpu0)
      await keys.holder.caughtUp()
      const all = (performance.now() - start) / 1000
      const cpuAll = process.cpuUsage(cpu0)
      const sec = (c: NodeJS.CpuUsage) => ((c.user + c.system) / 1e6).toFixed(1)
      rows.push(
        [
          recentFirst ? 'recent first' : 'whole topic',
          started.toFixed(1),
          sec(cpuStarted),
          all.toFixed(1),
          sec(cpuAll),
          keys.holder.size,
        ].join('\t'),
      )
      await keys.stop()
    }
  process.stdout.write(
    `${OLD} old keys, ${RECENT} recent\nread\tstart() s\tCPU s\tcaughtUp() s\tCPU s\tkeys held\n${rows.join('\n')}\n`,
  )
} finally {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
  await admin.disconnect()
}
