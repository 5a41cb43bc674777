// `npx tsx bench/kafkajs-send.ts [--per-send 2500] [--records 200000]` (bench/HISTORY.md): what kafkajs alone costs
// per record. Sends pre-encoded bench events (bench/replay.ts) to a fresh 6-partition topic on the local
// stack as ingest's group commit does (idempotent producer, acks=all, ingest's partitioner), one send at a
// time, and prints this process's CPU per record, with the client it ran (the vendored kafkajs,
// packages/kafkajs/CHANGES.md). Deletes its topic at the end.
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { kafkaClientInfo } from '../services/shared/src/kafka/client.js'
import { CachedDefaultPartitioner } from '../services/ingest/src/kafka/partitioner.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { openEventLog } from '../services/shared/src/event-log.js'
import { createLogger } from '../services/shared/src/log.js'
import { stackEnv } from './processes.js'
import { benchEvent } from './replay.js'

const { values: args } = parseArgs({
  options: { 'per-send': { type: 'string', default: '2500' }, records: { type: 'string', default: '200000' } },
})
const perSend = Number(args['per-send'])
const records = Number(args.records)
const id = randomBytes(3).toString('hex')
const env = {
  ...stackEnv(process.env as Record<string, string>),
  TOPIC_EVENTS: `bench.kafkajs.${id}.events`,
} as Record<string, string>
const cfg = loadProjectorConfig(env)
const { kafka, codec } = await openEventLog(cfg, 'bench-kafkajs', createLogger('warn', { svc: 'bench-kafkajs' }))
const admin = kafka.admin()
await admin.connect()
const topic = `bench.kafkajs.${id}.send`
await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }], waitForLeaders: true })
const producer = kafka.producer({ idempotent: true, createPartitioner: CachedDefaultPartitioner })
await producer.connect()
const now = Date.now()
const messages = Array.from({ length: perSend }, (_, i) => {
  const e = benchEvent(i, now)
  return { key: `${e.account_id}:${e.user_id}`, value: codec.encode('Event', e) }
})
for (let i = 0; i < 10; i++) await producer.send({ topic, acks: -1, messages }) // warm-up
const c0 = process.cpuUsage()
const t0 = Date.now()
for (let sent = 0; sent < records; sent += perSend) await producer.send({ topic, acks: -1, messages })
const c = process.cpuUsage(c0)
console.log(
  `user ${(c.user / (records / perSend)).toFixed(0)} sys ${(c.system / (records / perSend)).toFixed(0)} µs per send; kafkajs ${kafkaClientInfo.version}${kafkaClientInfo.vendored ? ' (vendored)' : ' (not vendored)'}; ${perSend} records per send: ${((c.user + c.system) / records).toFixed(1)} µs of client CPU per record, ${Math.round((records * 1000) / (Date.now() - t0))} records/s`,
)
await producer.disconnect()
await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
await admin.disconnect()
process.exit(0)
