// The hostile-client scenario (H24, H25; docs/reliability.md "Hostile clients"): one ingest instance
// on the running local stack, on its own topics, with a tenant sending normal traffic throughout, and
// three phases of `--seconds` each:
//   baseline  the tenant alone;
//   hobby     plus a Hobby key sending hostile bodies at its per-minute budget (100 a minute);
//   orbit     plus an Orbit key doing the same at its budget (10,000 a minute).
// The hostile bodies alternate: 9 KB of gzip inflating to 9.5 MB, sent but for its last bytes and then
// stalled; and 9 KB of gzip holding 3,000,000 `{}` in a field the envelope ignores. It prints, per phase,
// ingest's RSS, `/health/live` latency, the tenant's latency and errors, and what the hostile requests
// got, with the load average (the machine is shared). `--root` runs another checkout's ingest (e.g. main's,
// for a before/after table); the same node flags for both.
//
//   npx tsx bench/hostile.ts [--seconds 15] [--port 41080] [--root DIR] [--label after]
import { parseArgs } from 'node:util'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { request } from 'node:http'
import { gzipSync } from 'node:zlib'
import { loadavg, tmpdir } from 'node:os'
import { mkdirSync, openSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openAdmin } from '../scripts/admin-context.js'
import { createKafka } from '../services/shared/src/kafka.js'
import { createLogger } from '../services/shared/src/log.js'
import { ROOT, rssMiB, cpuSeconds } from './processes.js'
import { isolatedEnv } from '../test/support/harness.js'

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    port: { type: 'string', default: '41080' },
    root: { type: 'string', default: ROOT },
    label: { type: 'string', default: 'this checkout' },
    // Internal: run as the attacker process (its own event loop, so its work does not delay the probes).
    'attack-key': { type: 'string' },
    'attack-per-minute': { type: 'string' },
  },
})
const SECONDS = Number(args.seconds)
const PORT = Number(args.port)
const BASE = `http://127.0.0.1:${PORT}`
/** Ingest is killed past this RSS rather than let it take the shared machine's memory. */
const RSS_GUARD_MIB = 2500

const suffix = randomBytes(4).toString('hex')
// Its own topics, database and consumer group on the running stack, as the integration tests have.
const env = isolatedEnv(suffix, {
  TOPIC_PARTITIONS: '3',
  INGEST_PORT: String(PORT),
  INGEST_ADMIN_PORT: String(PORT + 1),
  INGEST_INSTANCE_ID: `ingest-hostile-${suffix}`,
  IP_REQUESTS_PER_MINUTE: '100000',
})

const sentAt = () => new Date().toISOString()
const EVENT = { type: 'event', event: 'x', user: { id: 'u' } }
const bomb = gzipSync(
  Buffer.from(JSON.stringify({ sent_at: sentAt(), events: [EVENT] }).slice(0, -1) + ' '.repeat(9_500_000) + '}'),
)
const junk = gzipSync(
  Buffer.from(`{"sent_at":"${sentAt()}","events":[${JSON.stringify(EVENT)}],"junk":[${'{},'.repeat(2_999_999)}{}]}`),
)

interface Phase {
  name: string
  rssStart: number
  rssMax: number
  live: number[]
  tenant: number[]
  tenantErrors: Record<string, number>
  hostile: Record<string, number>
  load: [number, number]
  /** CPU seconds ingest used in the phase: what the traffic cost it, less noisy than latency on a shared machine. */
  cpu: number
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}
const count = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One POST over its own connection; resolves with the status ('error' when the connection failed). */
function post(path: string, key: string, body: Buffer, gzip: boolean, track: Set<() => void>): Promise<string> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': body.length,
    }
    if (gzip) headers['content-encoding'] = 'gzip'
    const req = request(`${BASE}${path}`, { method: 'POST', headers, agent: false }, (res) => {
      res.resume()
      res.on('end', () => done(String(res.statusCode)))
    })
    const done = (s: string) => {
      track.delete(abort)
      resolve(s)
    }
    const abort = () => {
      req.destroy()
      done('unanswered')
    }
    track.add(abort)
    req.on('error', () => done('error'))
    req.end(body)
  })
}

/** The bomb without its last 16 bytes, then nothing: resolves with the status the server answered, or 'closed'/'unanswered'. */
function stalledBomb(key: string, track: Set<() => void>): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect(PORT, '127.0.0.1')
    let answer = ''
    const done = (s: string) => {
      track.delete(abort)
      socket.destroy()
      resolve(s)
    }
    const abort = () => done(answer || 'unanswered')
    track.add(abort)
    socket.on('data', (c: Buffer) => (answer ||= /^HTTP\/1\.1 (\d{3})/.exec(c.toString('latin1'))?.[1] ?? ''))
    socket.on('close', () => done(answer || 'closed'))
    socket.on('error', () => done(answer || 'closed'))
    socket.write(
      `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`,
    )
    socket.write(bomb.subarray(0, bomb.length - 16))
  })
}

async function runPhase(
  name: string,
  pid: number,
  tenantKey: string,
  attacker?: { key: string; perMinute: number },
): Promise<Phase> {
  const ph: Phase = {
    name,
    rssStart: rssMiB(pid) ?? 0,
    rssMax: 0,
    live: [],
    tenant: [],
    tenantErrors: {},
    hostile: {},
    load: [loadavg()[0]!, 0],
    cpu: -(cpuSeconds(pid) ?? 0),
  }
  const track = new Set<() => void>()
  const pending: Promise<unknown>[] = []
  const end = Date.now() + SECONDS * 1000
  const timers: NodeJS.Timeout[] = []
  const every = (ms: number, fn: () => void) => timers.push(setInterval(fn, ms))
  every(200, () => {
    const r = rssMiB(pid) ?? 0
    ph.rssMax = Math.max(ph.rssMax, r)
    if (r > RSS_GUARD_MIB) process.kill(pid, 'SIGKILL')
  })
  every(100, () => {
    const t0 = performance.now()
    pending.push(
      fetch(`${BASE}/health/live`)
        .then(async (r) => {
          await r.arrayBuffer()
          ph.live.push(performance.now() - t0)
        })
        .catch(() => count(ph.tenantErrors, 'live-failed')),
    )
  })
  const tenant = (path: string, body: Buffer) => {
    const t0 = performance.now()
    pending.push(
      post(path, tenantKey, body, false, track).then((s) => {
        if (s === '200') ph.tenant.push(performance.now() - t0)
        else count(ph.tenantErrors, s)
      }),
    )
  }
  // 25 single events and 2 batches of 20 a second: 65 events a second.
  every(40, () =>
    tenant(
      '/v1/event',
      Buffer.from(JSON.stringify({ event: 'page_viewed', user: { id: 'tenant' }, properties: { path: '/a' } })),
    ),
  )
  every(500, () =>
    tenant(
      '/v1/events',
      Buffer.from(JSON.stringify({ sent_at: sentAt(), events: Array.from({ length: 20 }, () => EVENT) })),
    ),
  )
  const attack = attacker ? startAttacker(attacker.key, attacker.perMinute) : undefined
  while (Date.now() < end) await sleep(200)
  for (const t of timers) clearInterval(t)
  // Whatever the server has not answered by the phase's end is counted as unanswered.
  await sleep(1000)
  for (const abort of [...track]) abort()
  await Promise.all(pending)
  if (attack !== undefined) ph.hostile = await attack
  ph.cpu += cpuSeconds(pid) ?? NaN
  ph.load[1] = loadavg()[0]!
  return ph
}

/** This script again, as the attacker, for the phase's length; resolves with its outcome counts. */
function startAttacker(key: string, perMinute: number): Promise<Record<string, number>> {
  const script = new URL(import.meta.url).pathname
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      script,
      '--port',
      String(PORT),
      '--seconds',
      String(SECONDS),
      '--attack-key',
      key,
      '--attack-per-minute',
      String(perMinute),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  return new Promise((resolve) => child.once('exit', () => resolve(JSON.parse(out || '{}'))))
}

/** The attacker: hostile bodies at `perMinute`, alternating the stalled bomb and the junk; prints its counts. */
async function attackerMain(key: string, perMinute: number): Promise<void> {
  const counts: Record<string, number> = {}
  const track = new Set<() => void>()
  const pending: Promise<unknown>[] = []
  let n = 0
  const timer = setInterval(() => {
    if (track.size > 2000) return void count(counts, 'not sent (2000 open)')
    const sent =
      n++ % 2 === 0
        ? stalledBomb(key, track).then((s) => `bomb ${s}`)
        : post('/v1/events', key, junk, true, track).then((s) => `junk ${s}`)
    pending.push(sent.then((s) => count(counts, s)))
  }, 60_000 / perMinute)
  await sleep(SECONDS * 1000)
  clearInterval(timer)
  await sleep(1000)
  for (const abort of [...track]) abort()
  await Promise.all(pending)
  process.stdout.write(JSON.stringify(counts))
}

function report(phases: Phase[], exited: string, logFile: string): string {
  const rows = phases.map((p) => {
    const errors =
      Object.entries(p.tenantErrors)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ') || '0'
    const hostile =
      Object.entries(p.hostile)
        .sort()
        .map(([k, v]) => `${v} ${k}`)
        .join(', ') || '-'
    return `| ${p.name} | ${p.rssStart.toFixed(0)} -> ${p.rssMax.toFixed(0)} | ${pct(p.live, 50).toFixed(1)} / ${pct(p.live, 99).toFixed(1)} / ${Math.max(...p.live, 0).toFixed(0)} | ${p.cpu.toFixed(1)} | ${p.tenant.length} | ${pct(p.tenant, 50).toFixed(1)} / ${pct(p.tenant, 99).toFixed(1)} | ${errors} | ${hostile} | ${p.load[0].toFixed(1)} -> ${p.load[1].toFixed(1)} |`
  })
  return [
    `ingest from ${args.label} (${args.root}), ${SECONDS} s per phase; ${exited}; its log: ${logFile}`,
    '',
    '| phase | ingest RSS MiB (start -> max) | /health/live ms p50 / p99 / max | ingest CPU s | tenant 200s | tenant ms p50 / p99 | tenant errors | hostile requests by outcome | load average 1 min (start -> end) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n')
}

async function main() {
  const logFile = join(tmpdir(), `hostile-ingest-${suffix}.log`)
  const child = spawn(
    process.execPath,
    [
      '--max-semi-space-size=64',
      '--max-old-space-size=2048',
      '--import',
      'tsx',
      join(args.root!, 'services/ingest/src/main.ts'),
    ],
    { cwd: args.root, env, stdio: ['ignore', 'ignore', openSync(logFile, 'a')] },
  )
  let exited = 'ingest ran to the end'
  child.once('exit', (code, signal) => (exited = `ingest EXITED (${signal ?? code})`))
  const { admin, close } = await openAdmin(env)
  try {
    for (let i = 0; ; i++) {
      // Readiness is on the admin listener (H36); a checkout from before it answers on the public port.
      const ready = (url: string) =>
        fetch(url)
          .then((r) => r.ok)
          .catch(() => false)
      const ok = (await ready(`http://127.0.0.1:${PORT + 1}/health/ready`)) || (await ready(`${BASE}/health/ready`))
      if (ok) break
      if (i > 300 || child.exitCode !== null) throw new Error('ingest did not become ready')
      await sleep(200)
    }
    const key = async (plan: string) => {
      const accountId = `acct_${plan}_${randomBytes(3).toString('hex')}`
      await admin.createAccount({ accountId, plan })
      return (await admin.createKey({ accountId, name: 'hostile bench', type: 'live' })).secret
    }
    const [tenant, hobby, orbit] = [await key('orbit'), await key('hobby'), await key('orbit')]
    // The keys are on the accounts topic; ingest knows them once a request with the last one passes.
    while (
      (await post(
        '/v1/event',
        orbit,
        Buffer.from(JSON.stringify({ event: 'x', user: { id: 'u' } })),
        false,
        new Set(),
      )) !== '200'
    )
      await sleep(200)
    const phases = [
      await runPhase('baseline', child.pid!, tenant),
      await runPhase('hobby attack (100/min)', child.pid!, tenant, { key: hobby, perMinute: 100 }),
      await runPhase('orbit attack (10,000/min)', child.pid!, tenant, { key: orbit, perMinute: 10_000 }),
    ]
    const text = report(phases, exited, logFile)
    console.log(text)
    const dir = join(ROOT, 'bench/results')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, `hostile-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify({ label: args.label, root: args.root, seconds: SECONDS, exited, phases }, null, 1),
    )
  } finally {
    child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r))
    clearTimeout(killer)
    await close()
    const kafka = createKafka(
      { brokers: (env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(','), clientId: 'hostile-bench' },
      createLogger('error'),
    )
    const ka = kafka.admin()
    await ka.connect()
    await ka
      .deleteTopics({ topics: [env.TOPIC_EVENTS!, env.TOPIC_IDENTIFIES!, env.TOPIC_ACCOUNTS!, env.TOPIC_DLQ!] })
      .catch(() => undefined)
    await ka.disconnect()
  }
}

const run = args['attack-key'] ? attackerMain(args['attack-key'], Number(args['attack-per-minute'])) : main()
run.catch((err) => {
  console.error(err)
  process.exitCode = 1
})
