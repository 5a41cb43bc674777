// The ingest request path without Kafka (bench/HISTORY.md): the real app (createIngestApp from dist/, as
// production runs it) with the real key table, limits, validation, records and Avro encoding, but
// an appender that acknowledges at once. It shows what HTTP, Koa, body parsing, validation and
// encoding cost per event, apart from kafkajs and the broker; `npm run bench` measures the whole.
//   npx tsx bench/http-path.ts [--seconds 8] [--connections 50] [--rate N] [--repeat N] [--message-ids] [--only single,batch,track,sbatch] [--profile] [--root DIR]
// --rate holds the load at N requests/s, so a before/after pair compares CPU at the same throughput
// (flat out, the cheaper side also answers more requests, and CPU per request falls with load).
// --repeat measures N windows against the same server process: how much one process's figure moves
// from window to window on this machine, apart from what differs between processes.
// --message-ids puts a message_id on every event, as the SDK does (ids by UUIDv5, H16).
// BENCH_SEAL=1 in the environment puts ingest's sealing step (PRIVACY_ENCRYPT, A15) in the path.
// It starts the app in a child process (so the load generator's CPU is not counted) and reports
// that process's CPU per answered event for single events and batches of 100. Needs only the
// schema registry of the local stack (SCHEMA_REGISTRY_URL or the default port).
import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { ROOT, compiled, cpuSeconds, ensureBuilt, freePort } from './processes.js'
import { runLoad, singleEventBody, batchBody } from './load.js'
import { segmentBatchBody, segmentTrackBody } from './segment-bodies.js'
import { nodeFlagsFor } from '../services/shared/src/node-flags.js'

const KEY = `svc_live_${'b'.repeat(40)}`

async function serve(port: number, root: string) {
  const dist = (p: string) => import(join(root, compiled(p)))
  const { createIngestApp } = await dist('services/ingest/src/http/app.ts')
  const { loadIngestConfig } = await dist('services/ingest/src/config.ts')
  const { KeyTable } = await dist('services/shared/src/accounts/key-table.ts')
  const { hashKey } = await dist('services/shared/src/accounts/key-hash.ts')
  const { MemoryLimits, localLimiters } = await dist('services/ingest/src/limits/index.ts')
  const { Codec, createRegistry } = await dist('schemas/codec.ts')
  const { createLogger } = await dist('services/shared/src/log.ts')
  // BENCH_SEAL=1: PRIVACY_ENCRYPT's sealing step (A15) in the path, keys stored at once (the steady state:
  // after a person's first request every key is held), to compare against the same run without it.
  const { RecordSealer } = await dist('services/ingest/src/privacy/record-sealer.ts')
  const sealer =
    process.env.BENCH_SEAL === '1' ? new RecordSealer(Buffer.alloc(32, 1), async () => undefined, 100_000) : undefined
  const suffix = randomBytes(4).toString('hex')
  const cfg = loadIngestConfig({
    ...process.env,
    TOPIC_EVENTS: `httppath.${suffix}.events`,
    TOPIC_IDENTIFIES: `httppath.${suffix}.identifies`,
    TOPIC_ACCOUNTS: `httppath.${suffix}.accounts`,
    TOPIC_DLQ: `httppath.${suffix}.dlq`,
  })
  const codec = new Codec(createRegistry(cfg.registryUrl, cfg.registryAuth))
  await codec.register(cfg.topics)
  const keys = new KeyTable()
  const t = Date.now()
  keys.applyAccount({
    account_id: 'acc_http',
    name: 'bench',
    plan: 'unlimited',
    status: 'active',
    owner_email: null,
    password_hash: null,
    created_at: t,
    updated_at: t,
  })
  keys.applyKey({
    key_id: 'key_http',
    account_id: 'acc_http',
    key_hash: hashKey(KEY),
    masked: 'x',
    name: 'bench',
    type: 'live',
    status: 'active',
    created_at: t,
    updated_at: t,
  })
  const app = createIngestApp({
    cfg,
    keys,
    limits: new MemoryLimits(localLimiters()),
    codec,
    appender: { append: async () => undefined },
    log: createLogger('warn', { svc: 'http-path' }),
    sealer,
  })
  // Exit normally on SIGINT, so --cpu-prof writes its profile.
  process.on('SIGINT', () => process.exit(0))
  app.listen(port, '127.0.0.1', () => process.send?.('ready'))
}

async function main() {
  const { values: a } = parseArgs({
    options: {
      serve: { type: 'string' },
      seconds: { type: 'string', default: '8' },
      connections: { type: 'string', default: '50' },
      profile: { type: 'boolean', default: false },
      rate: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      'message-ids': { type: 'boolean', default: false },
      only: { type: 'string', default: 'single,batch' },
      root: { type: 'string', default: ROOT },
    },
  })
  if (a.serve) return serve(Number(a.serve), a.root!)
  // --root: another checkout's dist/ (built there), for a before/after pair on the same machine.
  if (a.root === ROOT) await ensureBuilt()
  const port = await freePort()
  // The node flags production gives ingest (the bench's ingest has them too), so the GC is sized alike.
  const nodeArgs = [
    ...nodeFlagsFor('ingest'),
    ...(a.profile ? ['--cpu-prof', '--cpu-prof-dir', join(ROOT, 'bench/results/profiles')] : []),
  ]
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', new URL(import.meta.url).pathname, '--serve', String(port), '--root', a.root!],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: process.env },
  )
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)))
  })
  const url = `http://127.0.0.1:${port}`
  const settings = {
    connections: Number(a.connections),
    durationSec: Number(a.seconds),
    key: KEY,
    overallRate: a.rate ? Number(a.rate) : undefined,
  }
  const only = new Set(a.only!.split(','))
  const ids = a['message-ids']!
  const runs = (
    [
      ['single', '/v1/event', singleEventBody(ids), 1],
      ['batch', '/v1/events', batchBody(100, ids), 100],
      // Segment's API carrying the same events (the key as Bearer; Basic costs one base64 decode more).
      ['track', '/v1/track', segmentTrackBody(), 1],
      ['sbatch', '/v1/batch', segmentBatchBody(100), 100],
    ] as const
  ).filter((r) => only.has(r[0]))
  for (const [, path, body] of runs) await runLoad(`${url}${path}`, { ...settings, durationSec: 3, body })
  for (let rep = 0; rep < Number(a.repeat); rep++)
    for (const [name, path, body, per] of runs) {
      const c0 = cpuSeconds(child.pid!)!
      const f = await runLoad(`${url}${path}`, { ...settings, body, eventsPerRequest: per })
      const c1 = cpuSeconds(child.pid!)!
      const events = f.ok2xx * per
      console.log(
        `${({ batch: 'batch x100', sbatch: 'sbatch x100' } as Record<string, string>)[name] ?? name.padEnd(11)} ${Math.round(f.eventsPerSec)} events/s, non-2xx ${f.non2xx}, server cpu ${(((c1 - c0) * 1e6) / events).toFixed(1)} µs/event (load ${loadavg()[0]!.toFixed(1)})`,
      )
    }
  child.kill('SIGINT')
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
