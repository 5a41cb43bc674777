// `npx tsx bench/projector-catchup.ts [--records 600000] [--rounds 2] [--root DIR,DIR] [--hourly off,on]
// [--stack-running]` (bench/HISTORY.md): how fast
// the live projector works off a backlog, apart from how fast ingest fills it. Fills a fresh events topic
// once with bench events straight through Kafka (as `--only replay` does), then, per round and per
// checkout given to --root (each built: its dist/), starts that checkout's compiled projector on the
// topic with a fresh consumer group and ClickHouse database, and times the rows arriving in ClickHouse:
// from the first row seen to the last, polled every 200 ms. Prints records/s and the projector's CPU per
// record. Two checkouts alternate round by round, so a before/after pair sees the same machine minutes.
// The topic and the databases are deleted at the end.
import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { createProducer } from '../services/shared/src/kafka/client.js'
import { ROOT, compiled, cpuSeconds, ensureBuilt, freePort, stackEnv, stackUp } from './processes.js'
import { fill } from './replay.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { openEventLog } from '../services/shared/src/event-log.js'
import { createClickHouse } from '../services/shared/src/clickhouse.js'
import { createLogger } from '../services/shared/src/log.js'

const { values: a } = parseArgs({
  options: {
    records: { type: 'string', default: '600000' },
    rounds: { type: 'string', default: '2' },
    root: { type: 'string', default: ROOT },
    /** Each round runs once per value of HOURLY_COUNTS given (e.g. `off,on`), alternating: the cost of U25. */
    hourly: { type: 'string' },
    /** The stack is running already (a shared one: STACK_DIR): do not run stack.sh up. */
    'stack-running': { type: 'boolean', default: false },
  },
})
const records = Number(a.records)
const roots = a.root!.split(',')
const id = randomBytes(3).toString('hex')
const say = (s: string) => process.stderr.write(`catchup: ${s}\n`)

if (!a['stack-running']) await stackUp()
if (roots.includes(ROOT)) await ensureBuilt()
const base = stackEnv(process.env as Record<string, string>)
const topicEnv = (suffix: string) => ({
  TOPIC_EVENTS: `catchup.${id}.events`,
  TOPIC_IDENTIFIES: `catchup.${id}.${suffix}.identifies`,
  TOPIC_ACCOUNTS: `catchup.${id}.${suffix}.accounts`,
  TOPIC_DLQ: `catchup.${id}.${suffix}.dlq`,
})
const log = createLogger('warn', { svc: 'bench-catchup' })
const fillCfg = loadProjectorConfig({ ...base, ...topicEnv('fill'), CLICKHOUSE_DATABASE: `catchup_${id}_fill` })
const { kafka, codec } = await openEventLog(fillCfg, 'bench-catchup', log)
const producer = createProducer(kafka, { idempotent: true })
await producer.connect()
say(`filling ${fillCfg.topics.events} with ${records.toLocaleString('en-US')} records`)
await fill(producer, codec, fillCfg.topics.events, records, say).finally(() => producer.disconnect())
const ch = await createClickHouse(fillCfg.clickhouse)
const databases: string[] = []
const topics = new Set<string>([
  fillCfg.topics.events,
  fillCfg.topics.identifies,
  fillCfg.topics.accounts,
  fillCfg.topics.dlq,
])

async function count(db: string): Promise<number> {
  try {
    const rs = await ch.query({ query: `SELECT count() AS n FROM ${db}.events`, format: 'JSONEachRow' })
    const [row] = await rs.json<{ n: string }>()
    return Number(row!.n)
  } catch {
    return 0 // the projector has not made its tables yet
  }
}

async function round(root: string, n: number, hourly?: string) {
  const suffix = `r${n}`
  const db = `catchup_${id}_${suffix}`
  databases.push(db)
  const env = {
    ...base,
    ...topicEnv(suffix),
    CLICKHOUSE_DATABASE: db,
    PROJECTOR_GROUP_ID: `catchup-${id}-${suffix}`,
    PROJECTOR_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    ...(hourly ? { HOURLY_COUNTS: hourly } : {}),
  }
  for (const k of ['TOPIC_IDENTIFIES', 'TOPIC_ACCOUNTS', 'TOPIC_DLQ'] as const) topics.add(env[k])
  const proc = spawn(process.execPath, [join(root, compiled('services/projector/src/main.ts'))], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  let first: { t: number; n: number; cpu: number } | null = null
  const deadline = Date.now() + 600_000
  let seen = 0
  while (Date.now() < deadline) {
    seen = await count(db)
    if (seen > 0 && first === null) first = { t: Date.now(), n: seen, cpu: cpuSeconds(proc.pid!) ?? 0 }
    if (seen >= records) break
    await new Promise((r) => setTimeout(r, 200))
  }
  const end = { t: Date.now(), cpu: cpuSeconds(proc.pid!) ?? 0 }
  proc.kill('SIGTERM')
  await exited
  if (first === null || seen < records) throw new Error(`${root}: ${seen} of ${records} rows within 10 minutes`)
  const rate = Math.round(((records - first.n) * 1000) / Math.max(1, end.t - first.t))
  const cpuUs = (((end.cpu - first.cpu) * 1e6) / Math.max(1, records - first.n)).toFixed(1)
  console.log(
    `${root === ROOT ? 'this checkout' : root}${hourly ? ` HOURLY_COUNTS=${hourly}` : ''}: ${rate.toLocaleString('en-US')} records/s from the first row to the last, projector ${cpuUs} µs CPU a record (load ${loadavg()[0]!.toFixed(1)})`,
  )
}

try {
  for (let r = 0; r < Number(a.rounds); r++) {
    // Alternate which checkout goes first, so neither always meets the same minute.
    const runs = roots.flatMap((root) => (a.hourly?.split(',') ?? [undefined]).map((hourly) => ({ root, hourly })))
    const order = r % 2 === 0 ? runs : [...runs].reverse()
    for (const [i, run] of order.entries()) await round(run.root, r * runs.length + i, run.hourly)
  }
} finally {
  for (const db of databases) await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` }).catch(() => undefined)
  await ch.close()
  const admin = kafka.admin()
  await admin.connect()
  await admin.deleteTopics({ topics: [...topics] }).catch(() => undefined)
  await admin.disconnect()
}
process.exit(0)
