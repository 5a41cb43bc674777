// Child processes of a bench run: the local stack check, ingest, projector and the bare baseline
// server, each a separate process with its own environment, so the load generator never shares
// their event loop. The services run as production runs them: compiled JavaScript from dist/
// (`npm run build`, brought up to date by scripts/ensure-built.mjs), plain `node`, no tsx.
// Every child is stopped on exit and on Ctrl-C.
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { createWriteStream, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { createProducer, type Kafka } from '../services/shared/src/kafka/client.js'

export const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '')

export async function stackUp(): Promise<void> {
  await promisify(execFile)('bash', [join(ROOT, 'deploy/local/stack.sh'), 'up'], { cwd: ROOT, timeout: 300_000 })
}

/**
 * The service variables for the stack `stackUp` starts: deploy/local/stack.sh takes its ports from
 * KAFKA_PORT, REGISTRY_PORT and CLICKHOUSE_HTTP_PORT (a second stack beside the shared one), so
 * KAFKA_BROKERS, SCHEMA_REGISTRY_URL and CLICKHOUSE_URL follow them unless they are set.
 */
export function stackEnv(env: Record<string, string>): Record<string, string> {
  const out = { ...env }
  if (env.KAFKA_PORT && !env.KAFKA_BROKERS) out.KAFKA_BROKERS = `127.0.0.1:${env.KAFKA_PORT}`
  if (env.REGISTRY_PORT && !env.SCHEMA_REGISTRY_URL)
    out.SCHEMA_REGISTRY_URL = `http://127.0.0.1:${env.REGISTRY_PORT}/apis/ccompat/v7`
  if (env.CLICKHOUSE_HTTP_PORT && !env.CLICKHOUSE_URL)
    out.CLICKHOUSE_URL = `http://127.0.0.1:${env.CLICKHOUSE_HTTP_PORT}`
  return out
}

/** A bench run's names for every topic the services create (A3, A12, A15, H65), so its cleanup, which deletes
 *  the topics its config names, deletes only its own and never the stack's default ones. */
export function benchTopics(id: string): Record<string, string> {
  const names = { EVENTS: 'events', IDENTIFIES: 'identifies', ACCOUNTS: 'accounts', DLQ: 'dlq' }
  const privacy = { ERASURES: 'erasures', REFUSALS: 'refusals', KEYS: 'keys' }
  return Object.fromEntries(
    Object.entries({ ...names, ...privacy }).map(([k, v]) => [`TOPIC_${k}`, `bench.${id}.${v}`]),
  )
}

/** Builds dist/ when a source is newer than the last build (as `npm run replay` does). */
export async function ensureBuilt(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/ensure-built.mjs')], { cwd: ROOT, timeout: 600_000 })
}

/** The compiled file of a service or CLI source: services/x/src/main.ts -> dist/services/x/src/main.js. */
export function compiled(source: string): string {
  return join('dist', source.replace(/\.ts$/, '.js'))
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export interface Child {
  name: string
  proc: ChildProcess
  pid: number
  logFile: string
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>
}

const children = new Set<Child>()

/**
 * Starts `node <script>` (relative to the repository, or absolute: another checkout's build) with `env`,
 * logging to `logDir/<name>.log`: a `.js` file (a service from dist/) runs as is, a `.ts` file (the bare
 * baseline, which is not part of the build) with tsx.
 */
export function startNode(
  name: string,
  script: string,
  env: Record<string, string>,
  logDir: string,
  nodeArgs: string[] = [],
): Child {
  const logFile = join(logDir, `${name}.log`)
  const out = createWriteStream(logFile, { flags: 'a' })
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : []
  const proc = spawn(process.execPath, [...nodeArgs, ...loader, resolve(ROOT, script)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  proc.stdout!.pipe(out)
  proc.stderr!.pipe(out)
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  const child: Child = { name, proc, pid: proc.pid!, logFile, exited }
  children.add(child)
  void exited.then(() => children.delete(child))
  return child
}

/** SIGTERM (the services drain and, with --cpu-prof, write their profile), SIGKILL after `graceMs`. */
export async function stopChild(c: Child, graceMs = 15_000): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return
  c.proc.kill('SIGTERM')
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), graceMs)
  await c.exited
  clearTimeout(timer)
}

export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c)))
}

/** Polls `url` until it answers 2xx; fails early if the child exits. */
export async function waitHealthy(c: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now()
  let dead = false
  void c.exited.then(() => (dead = true))
  while (Date.now() - start < timeoutMs) {
    if (dead) throw new Error(`${c.name} exited during start; see ${c.logFile}:\n${tail(c.logFile)}`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${c.name} not healthy at ${url} after ${timeoutMs} ms; see ${c.logFile}:\n${tail(c.logFile)}`)
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

/** Resident set size of a process in MiB, from /proc/<pid>/status (Linux). */
export function rssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : null
  } catch {
    return null
  }
}

/**
 * CPU time (user+system) of the children this process has waited for, in seconds (/proc/self/stat
 * cutime+cstime): a CLI's whole CPU once it has exited, which /proc/<pid> no longer shows.
 */
export function reapedChildrenCpuSeconds(): number {
  const fields = statFields('self')
  return (Number(fields[13]) + Number(fields[14])) / 100
}

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces): [0] is the state, [1]
 *  the parent's pid, [11] and [12] utime and stime, [13] and [14] the reaped children's. Throws once it is gone. */
function statFields(pid: number | 'self'): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
}

/** CPU time every core of the machine spent busy (not idle, not waiting for I/O) since boot, in seconds
 *  (/proc/stat's first line): over a run, how much of the machine the run's processes and all else took. */
export function machineBusySeconds(): number {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .map(Number)
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100
}

/** The machine's busy time sampled every `everyMs` while a command runs: `busiest(ms)` is the cores kept
 *  busy on average over the busiest stretch of that length (a replay's own window, whatever its start took). */
export function sampleMachineBusy(everyMs = 250) {
  const samples: Array<{ at: number; busy: number }> = [{ at: performance.now(), busy: machineBusySeconds() }]
  const timer = setInterval(() => samples.push({ at: performance.now(), busy: machineBusySeconds() }), everyMs)
  return {
    stop() {
      clearInterval(timer)
      samples.push({ at: performance.now(), busy: machineBusySeconds() })
    },
    busiest: (ms: number) => busiestRate(samples, ms),
  }
}

/** Of samples of a growing count (busy seconds at ms times), the highest rate a second over any stretch of
 *  at least `ms` (or the whole, if shorter). */
export function busiestRate(samples: ReadonlyArray<{ at: number; busy: number }>, ms: number): number {
  const rate = (i: number, j: number) =>
    (samples[j]!.busy - samples[i]!.busy) / ((samples[j]!.at - samples[i]!.at) / 1000)
  const last = samples.length - 1
  if (last < 1) return 0
  if (samples[last]!.at - samples[0]!.at <= ms) return rate(0, last)
  let best = 0
  for (let i = 0, j = 0; i < last; i++) {
    while (j < last && samples[j]!.at - samples[i]!.at < ms) j++
    if (samples[j]!.at - samples[i]!.at < ms) break
    best = Math.max(best, rate(i, j))
  }
  return best
}

/** Resident memory of a process and every process under it, in MiB, from /proc (0 once they are gone). */
export function treeRssMiB(root: number): number {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    const pid = Number(name)
    if (!Number.isInteger(pid)) continue
    try {
      const ppid = Number(statFields(pid)[1])
      children.set(ppid, [...(children.get(ppid) ?? []), pid])
    } catch {
      // gone meanwhile
    }
  }
  let mib = 0
  for (const todo = [root]; todo.length > 0; ) {
    const pid = todo.pop()!
    mib += rssMiB(pid) ?? 0
    todo.push(...(children.get(pid) ?? []))
  }
  return mib
}

/** The highest RSS of a process tree (a command that runs again in a child, as the replay does: A32), sampled
 *  every `everyMs` once `watch` names its root. */
export function samplePeakRss(everyMs = 250) {
  let root: number | undefined
  let peak = 0
  const sample = () => {
    if (root !== undefined) peak = Math.max(peak, treeRssMiB(root))
  }
  const timer = setInterval(sample, everyMs)
  return {
    watch(pid: number) {
      root = pid
      sample()
    },
    stop() {
      clearInterval(timer)
    },
    peakMiB: () => Math.round(peak),
  }
}

/** CPU time (user+system) of a process in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = statFields(pid)
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

export function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown'
  const meminfo = readFileSync('/proc/meminfo', 'utf8')
  const memKb = Number(/MemTotal:\s+(\d+)/.exec(meminfo)?.[1] ?? 0)
  const nproc = (cpuinfo.match(/^processor\s*:/gm) ?? []).length
  return {
    nproc,
    memoryGiB: Math.round((memKb / 1024 / 1024) * 10) / 10,
    cpuModel: model,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  }
}

/** Writes `count` records to `topic` (acks=all, 5,000 a send, one idempotent producer): record `i` is
 *  `messageOf(i)`. The keys benches' fill (bench/keys-scan.ts, bench/keys-start.ts). */
export async function sendAll(
  kafka: Kafka,
  topic: string,
  count: number,
  messageOf: (i: number) => { key: string; value: Buffer | null; timestamp?: string },
): Promise<void> {
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  try {
    for (let sent = 0; sent < count; sent += 5_000) {
      const messages = Array.from({ length: Math.min(5_000, count - sent) }, (_, j) => messageOf(sent + j))
      await producer.send({ topic, acks: -1, messages })
    }
  } finally {
    await producer.disconnect()
  }
}
