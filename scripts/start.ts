// npm start: the whole thing on this machine. Brings the local stack up (installing on first run),
// starts the projector and ingest services as child processes, creates a demo account with a test
// key on first run, and prints the URLs and a ready-to-paste curl. A service that crashes is started
// again (supervise.ts), with a line saying so. Ctrl-C stops the services.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { Supervisor } from './supervise.js'
import { nodeFlagsFor } from '../services/shared/src/node-flags.js'
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const STACK = join(ROOT, '.stack')
const DEMO_FILE = join(STACK, 'demo-key.json')
const env = { ...process.env }
const ingestPort = Number(env.INGEST_PORT ?? 8080)
// Ingest's readiness and metrics are on its admin listener, not its public port (H36).
const ingestAdminPort = Number(env.INGEST_ADMIN_PORT ?? 8090)
const projectorPort = Number(env.PROJECTOR_PORT ?? 8081)
const dashboardPort = Number(env.DASHBOARD_PORT ?? 8082)

function step(msg: string) {
  process.stdout.write(`\x1b[1m==>\x1b[0m ${msg}\n`)
}

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env })
  if (r.status !== 0) process.exit(r.status ?? 1)
}

/** services/x/src/main.ts -> dist/services/x/src/main.js */
function compiled(entry: string): string {
  return join(ROOT, 'dist', entry.replace(/\.ts$/, '.js'))
}

function spawnService(name: string, entry: string, extraEnv: Record<string, string>): ChildProcess {
  // Services run compiled (dist/, built by ensure-built below), as in production, with the
  // production node flags.
  const child = spawn(process.execPath, [...nodeFlagsFor(name), compiled(entry)], {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const prefix = `[${name}] `
  const pipe = (s: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let buf = ''
    s.on('data', (d) => {
      buf += d
      const lines = buf.split('\n')
      buf = lines.pop()!
      for (const l of lines) out.write(prefix + l + '\n')
    })
  }
  pipe(child.stdout!, process.stdout)
  pipe(child.stderr!, process.stderr)
  return child
}

const services: Supervisor[] = []
let stopping = false

/** Stops every service; the stack keeps running. */
async function stopServices(code: number, why?: string): Promise<never> {
  if (!stopping) {
    stopping = true
    if (why) console.error(`\x1b[1m==>\x1b[0m ${why}`)
    step('stopping services (the stack keeps running: npm run stack:down stops it)')
    await Promise.all(services.map((s) => s.stop('SIGTERM', 8000)))
  }
  process.exit(code)
}

function service(name: string, entry: string, extraEnv: Record<string, string> = {}): Supervisor {
  const s = new Supervisor(
    name,
    () => spawnService(name, entry, extraEnv),
    (line) => process.stderr.write(`\x1b[1m==>\x1b[0m ${line}\n`),
    (message) => void stopServices(1, `npm start: ${message}; stopping.`),
  )
  services.push(s)
  s.start()
  return s
}

/** Polls `url` until it answers 2xx; a crash meanwhile is the supervisor's to restart, so only
 * its giving up (or the timeout) ends the wait. */
async function waitHealthy(url: string, name: string, svc: Supervisor, timeoutMs = 120_000) {
  const start = Date.now()
  while (Date.now() - start < timeoutMs) {
    if (svc.gaveUp) throw new Error(svc.gaveUp)
    try {
      const r = await fetch(url)
      if (r.ok) return
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300))
  }
  throw new Error(`${name} not healthy after ${timeoutMs / 1000}s at ${url}`)
}

async function main() {
  const t0 = Date.now()
  step('starting the local stack (Kafka, schema registry, ClickHouse); the first run installs them')
  run('bash', ['deploy/local/stack.sh', 'up'])

  step('compiling the services to dist/ (only when sources changed)')
  run(process.execPath, ['scripts/ensure-built.mjs'])

  // A fresh secret per run unless one is given: the two processes started here share it.
  const liveToken = env.LIVE_TOKEN || randomBytes(24).toString('hex')
  step('starting projector and ingest')
  process.on('SIGINT', () => void stopServices(0))
  process.on('SIGTERM', () => void stopServices(0))
  const projector = service('projector', 'services/projector/src/main.ts', { LIVE_TOKEN: liveToken })
  await waitHealthy(`http://127.0.0.1:${projectorPort}/health`, 'projector', projector)
  const ingest = service('ingest', 'services/ingest/src/main.ts')
  const dashboardEntry = join(ROOT, 'services/dashboard/src/main.ts')
  let dashboard: Supervisor | undefined
  // The dashboard reads as the stack's read-only user (deploy/local/clickhouse/users.xml, H23).
  if (existsSync(dashboardEntry))
    dashboard = service('dashboard', 'services/dashboard/src/main.ts', {
      LIVE_TOKEN: liveToken,
      CLICKHOUSE_READ_USER: env.CLICKHOUSE_READ_USER ?? 'dashboard_read',
    })

  await waitHealthy(`http://127.0.0.1:${ingestAdminPort}/health/ready`, 'ingest', ingest)
  if (dashboard)
    await waitHealthy(`http://127.0.0.1:${dashboardPort}/health`, 'dashboard', dashboard).catch((e) =>
      console.error(String(e)),
    )

  if (!existsSync(DEMO_FILE)) {
    step('first run: creating the demo account and a test key')
    const r = spawnSync(
      process.execPath,
      [compiled('scripts/keys.ts'), 'create', '--account', 'demo', '--name', 'demo key', '--type', 'test', '--json'],
      { cwd: ROOT, env, encoding: 'utf8' },
    )
    if (r.status !== 0) throw new Error(`could not create the demo key: ${r.stderr}`)
    mkdirSync(STACK, { recursive: true })
    writeFileSync(DEMO_FILE, r.stdout.trim().split('\n').pop()!, { mode: 0o600 })
  }
  const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8'))
  const db = env.CLICKHOUSE_DATABASE ?? 'tracking'
  const chUrl = env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123'
  process.stdout.write(`
\x1b[1mReady in ${((Date.now() - t0) / 1000).toFixed(1)}s.\x1b[0m
  ingest      http://127.0.0.1:${ingestPort}   (POST /v1/event, /v1/events; GET /openapi.json)
              http://127.0.0.1:${ingestAdminPort}   (admin, loopback: GET /metrics, /health/ready)
  projector   http://127.0.0.1:${projectorPort}   (GET /metrics, /health, /live)
${dashboard ? `  dashboard   http://127.0.0.1:${dashboardPort}\n` : ''}
Send a first event with the demo test key (${demo.key_id}, kept in .stack/demo-key.json):

  curl -s -X POST http://127.0.0.1:${ingestPort}/v1/event \\
    -H 'Authorization: Bearer ${demo.key}' \\
    -H 'Content-Type: application/json' \\
    -d '{"event":"signup_completed","user":{"id":"user_1"},"properties":{"plan":"pro"}}'

See it in ClickHouse (within a second or two):

  curl -s ${chUrl} --data-binary "SELECT event_id, event, user_id, timestamp FROM ${db}.events FINAL ORDER BY timestamp DESC LIMIT 5"

Ctrl-C stops the services.
`)
}

main().catch((err) => {
  console.error(`start failed: ${err?.message ?? err}`)
  void stopServices(1)
})
