// `npx tsx bench/compression.ts [--records 200000] [--per-send 2500] [--rounds 2]` (bench/HISTORY.md: "measure
// compression for batches"). Produces real Avro event records (bench/replay.ts's events, 553 bytes
// each) to a fresh topic on the local stack with kafkajs, as ingest's group commit sends batches
// (idempotent producer, acks=all, one send of --per-send records at a time; 2,500 is the records per
// flush the bench measures for /v1/events x100), once without compression and once with gzip (the
// only codec kafkajs carries without extra packages), in alternating rounds. Prints, per mode, the
// client CPU per record (this process), the broker's CPU per record (/proc/<kafka pid>/stat), the
// bytes of the topic's log segments and the rate. Deletes its topics at the end.
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { CompressionTypes, createProducer } from '../services/shared/src/kafka/client.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { openEventLog } from '../services/shared/src/event-log.js'
import { createLogger } from '../services/shared/src/log.js'
import { ROOT, cpuSeconds, stackEnv } from './processes.js'
import { benchEvent } from './replay.js'

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '200000' },
    'per-send': { type: 'string', default: '2500' },
    rounds: { type: 'string', default: '2' },
  },
})
const records = Number(args.records)
const perSend = Number(args['per-send'])
const rounds = Number(args.rounds)

const id = randomBytes(3).toString('hex')
const env = {
  ...stackEnv(process.env as Record<string, string>),
  TOPIC_EVENTS: `bench.compression.${id}.events`,
  TOPIC_IDENTIFIES: `bench.compression.${id}.identifies`,
  TOPIC_ACCOUNTS: `bench.compression.${id}.accounts`,
  TOPIC_DLQ: `bench.compression.${id}.dlq`,
} as Record<string, string>
const cfg = loadProjectorConfig(env)
const log = createLogger('warn', { svc: 'bench-compression' })
const { kafka, codec } = await openEventLog(cfg, 'bench-compression', log)
const admin = kafka.admin()
await admin.connect()
const producer = createProducer(kafka, { idempotent: true })
await producer.connect()
const kafkaPid = Number(execFileSync('pgrep', ['-f', 'kafka.Kafka']).toString().trim().split('\n')[0])

const now = Date.now()
const messages = Array.from({ length: perSend }, (_, i) => {
  const e = benchEvent(i, now)
  return { key: `${e.account_id}:${e.user_id}`, value: codec.encode('Event', e) }
})

async function topicBytes(topic: string): Promise<number> {
  // kafkajs has no DescribeLogDirs; the local stack's data directory is read instead.
  const out = execFileSync('bash', [
    '-c',
    `cat ${env.STACK_DIR ?? `${ROOT}/.stack`}/kafka/data/${topic}-*/*.log 2>/dev/null | wc -c`,
  ]).toString()
  return Number(out.trim())
}

// Deleted at the end: a producer that sent to a topic keeps asking for its metadata, and kafkajs
// fails the next send when that topic is gone.
const made: string[] = []
const results: Record<string, { clientUs: number[]; brokerUs: number[]; bytesPerRecord: number[]; perSec: number[] }> =
  {}
for (let round = 0; round < rounds; round++) {
  for (const [name, compression] of [
    ['none', CompressionTypes.None],
    ['gzip', CompressionTypes.GZIP],
  ] as const) {
    const topic = `${cfg.topics.events}.${name}.${round}`
    await admin.createTopics({
      topics: [{ topic, numPartitions: cfg.topicPartitions, replicationFactor: 1 }],
      waitForLeaders: true,
    })
    const c0 = process.cpuUsage()
    const k0 = cpuSeconds(kafkaPid)
    const t0 = Date.now()
    for (let sent = 0; sent < records; sent += perSend) await producer.send({ topic, acks: -1, compression, messages })
    const secs = (Date.now() - t0) / 1000
    const c1 = process.cpuUsage(c0)
    const k1 = cpuSeconds(kafkaPid)
    const r = (results[name] ??= { clientUs: [], brokerUs: [], bytesPerRecord: [], perSec: [] })
    r.clientUs.push(Math.round(((c1.user + c1.system) / records) * 10) / 10)
    r.brokerUs.push(k0 !== null && k1 !== null ? Math.round((((k1 - k0) * 1e6) / records) * 10) / 10 : NaN)
    r.bytesPerRecord.push(Math.round((await topicBytes(topic)) / records))
    r.perSec.push(Math.round(records / secs))
    made.push(topic)
  }
}
console.log(
  `records per mode and round ${records}, ${perSend} per send, record value ${messages[0]!.value.length} bytes`,
)
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(5)} client CPU µs/record ${r.clientUs.join(', ')}; broker CPU µs/record ${r.brokerUs.join(', ')}; on disk bytes/record ${r.bytesPerRecord.join(', ')}; records/s ${r.perSec.join(', ')}`,
  )
}
await producer.disconnect()
await admin.deleteTopics({ topics: [...made, ...Object.values(cfg.topics)] }).catch(() => undefined)
await admin.disconnect()
process.exit(0)
