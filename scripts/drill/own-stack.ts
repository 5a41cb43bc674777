// The drill's own Kafka, registry and ClickHouse: deploy/local/stack.sh run with a separate
// STACK_DIR and ports, so killing, stalling and stopping them never touches the shared stack.
// The daemons' pids are the ones stack.sh records in $STACK_DIR/run/<component>.pid.
import { execFile } from 'node:child_process'
import { readFileSync, appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { connect } from 'node:net'
import { promisify } from 'node:util'

export type Component = 'kafka' | 'registry' | 'clickhouse'

export interface StackPorts {
  kafka: number
  kafkaController: number
  registry: number
  clickhouseHttp: number
  clickhouseTcp: number
}

export class StackError extends Error {
  readonly code = 'DRILL_STACK'
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export class OwnStack {
  readonly logFile: string

  constructor(
    private readonly root: string,
    readonly dir: string,
    readonly ports: StackPorts,
  ) {
    this.logFile = join(dir, 'drill-stack.log')
  }

  private env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      STACK_DIR: this.dir,
      KAFKA_PORT: String(this.ports.kafka),
      KAFKA_CONTROLLER_PORT: String(this.ports.kafkaController),
      REGISTRY_PORT: String(this.ports.registry),
      CLICKHOUSE_HTTP_PORT: String(this.ports.clickhouseHttp),
      CLICKHOUSE_TCP_PORT: String(this.ports.clickhouseTcp),
      // ClickHouse (chdb-core, A8) from the shared stack's install: the same pinned version, not another 560 MB.
      CHDB_VENV: process.env.CHDB_VENV ?? join(this.root, '.stack', 'chdb-venv'),
      // Two stacks share the machine: smaller heaps than the shared one's defaults are plenty here.
      KAFKA_HEAP: process.env.DRILL_KAFKA_HEAP ?? '-Xms128m -Xmx512m',
      REGISTRY_HEAP: process.env.DRILL_REGISTRY_HEAP ?? '-Xms64m -Xmx384m',
    }
  }

  /** The environment that points a service or client at this stack. */
  serviceEnv(): Record<string, string> {
    return {
      KAFKA_BROKERS: `127.0.0.1:${this.ports.kafka}`,
      SCHEMA_REGISTRY_URL: `http://127.0.0.1:${this.ports.registry}/apis/ccompat/v7`,
      CLICKHOUSE_URL: `http://127.0.0.1:${this.ports.clickhouseHttp}`,
    }
  }

  /** `stack.sh up`: starts whatever of the three is not running (and installs on first use).
   * One retry: on a loaded machine the registry's H2 store sometimes fails its first start
   * (a connection acquisition timeout interrupts the file channel), and a second start works. */
  async up(onRetry?: (err: Error) => void): Promise<void> {
    try {
      await this.script('up', 600_000)
    } catch (err) {
      onRetry?.(err as Error)
      // A component that is running but not ready would be skipped by stack.sh; stop it first.
      for (const c of ['registry', 'clickhouse', 'kafka'] as const)
        if (this.pid(c) && !(await this.ready(c))) await this.kill(c)
      await this.script('up', 600_000)
    }
  }

  async ready(c: Component): Promise<boolean> {
    const probe = async (url: string) => {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(3000) })
        await res.arrayBuffer()
        return res.ok
      } catch {
        return false
      }
    }
    if (c === 'registry') return probe(`http://127.0.0.1:${this.ports.registry}/apis/ccompat/v7/subjects`)
    if (c === 'clickhouse') return probe(`http://127.0.0.1:${this.ports.clickhouseHttp}/ping`)
    return new Promise((resolve) => {
      const sock = connect(this.ports.kafka, '127.0.0.1')
      sock.setTimeout(3000)
      sock.once('connect', () => (sock.destroy(), resolve(true)))
      sock.once('error', () => resolve(false))
      sock.once('timeout', () => (sock.destroy(), resolve(false)))
    })
  }

  async down(): Promise<void> {
    // A stalled broker cannot stop; resume it first (a no-op when it runs).
    const kafka = this.pid('kafka')
    if (kafka) this.signal('kafka', 'SIGCONT')
    await this.script('down', 120_000)
  }

  pid(c: Component): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.dir, 'run', `${c}.pid`), 'utf8').trim())
      return pid > 0 && pidAlive(pid) ? pid : undefined
    } catch {
      return undefined
    }
  }

  signal(c: Component, sig: NodeJS.Signals): number {
    const pid = this.pid(c)
    if (!pid) throw new StackError(`${c} is not running in ${this.dir}`)
    process.kill(pid, sig)
    return pid
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once the process is gone. */
  async stop(c: Component, graceMs = 30_000): Promise<void> {
    const pid = this.signal(c, 'SIGTERM')
    if (!(await waitGone(pid, graceMs))) {
      process.kill(pid, 'SIGKILL')
      await waitGone(pid, 10_000)
    }
  }

  async kill(c: Component): Promise<void> {
    const pid = this.signal(c, 'SIGKILL')
    await waitGone(pid, 10_000)
  }

  private async script(cmd: 'up' | 'down', timeout: number): Promise<void> {
    mkdirSync(this.dir, { recursive: true })
    try {
      const r = await promisify(execFile)('bash', [join(this.root, 'deploy/local/stack.sh'), cmd], {
        cwd: this.root,
        env: this.env(),
        timeout,
      })
      appendFileSync(this.logFile, r.stdout + r.stderr)
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string }
      appendFileSync(this.logFile, (e.stdout ?? '') + (e.stderr ?? ''))
      throw new StackError(
        `stack.sh ${cmd} failed for ${this.dir}: ${(e.stderr ?? e.message).trim().split('\n').slice(-12).join('\n')}`,
        { cause: err },
      )
    }
  }
}

export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs
  while (pidAlive(pid)) {
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 100))
  }
  return true
}
