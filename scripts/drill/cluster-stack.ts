// The cluster drill's own cluster profile: deploy/local/cluster.sh (through stack.sh --profile
// cluster) run with its own directory and port block, so the brokers and ingest instances it kills
// are never those of a cluster a user started. `up` starts whatever is not running, which is also
// how a killed component is restarted. Pids are the ones cluster.sh records in <dir>/run/<comp>.pid.
import { execFile } from 'node:child_process'
import { readFileSync, appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pidAlive, waitGone, StackError } from './own-stack.js'

export type ClusterComponent =
  | 'kafka-1'
  | 'kafka-2'
  | 'kafka-3'
  | 'ingest-1'
  | 'ingest-2'
  | 'projector'
  | 'haproxy'
  | 'registry'
  | 'redis'
  | 'zookeeper'
  | 'clickhouse-1'
  | 'clickhouse-2'
  | 'clickhouse-3'
  | 'clickhouse-4'

/** The offsets of cluster.sh's ports from CLUSTER_PORT_BASE (README, deploy/local/cluster.sh). */
export const PORT_OFFSETS = {
  haproxy: 0,
  ingest1: 1,
  ingest2: 2,
  ingest1Admin: 11,
  ingest2Admin: 12,
  kafka1: 92,
  kafka2: 192,
  kafka3: 292,
  registry: 81,
  clickhouseHttp: 121,
  redis: 379,
  projector: 101,
} as const

export class ClusterStack {
  readonly logFile: string

  constructor(
    private readonly root: string,
    readonly dir: string,
    readonly portBase: number,
    /** Passed to the services cluster.sh starts (topics, database, group of this run). */
    private readonly servicesEnv: Record<string, string>,
  ) {
    this.logFile = join(dir, 'drill-cluster.log')
  }

  port(name: keyof typeof PORT_OFFSETS): number {
    return this.portBase + PORT_OFFSETS[name]
  }

  /** clickhouse-N's HTTP port: deploy/local/cluster/clickhouse.sh (base + 120 + N). */
  clickhouseUrl(n: number): string {
    return `http://127.0.0.1:${this.portBase + PORT_OFFSETS.clickhouseHttp - 1 + n}`
  }

  get haproxyUrl(): string {
    return `http://127.0.0.1:${this.port('haproxy')}`
  }

  ingestUrl(instance: 1 | 2): string {
    return `http://127.0.0.1:${this.port(instance === 1 ? 'ingest1' : 'ingest2')}`
  }

  /** An ingest instance's admin listener (/metrics, /health/ready; H36). */
  ingestAdminUrl(instance: 1 | 2): string {
    return `http://127.0.0.1:${this.port(instance === 1 ? 'ingest1Admin' : 'ingest2Admin')}`
  }

  /** What points a client (the drill's admin and reconciliation) at this cluster, as the services are. */
  clientEnv(): Record<string, string> {
    return {
      ...this.servicesEnv,
      KAFKA_BROKERS: (['kafka1', 'kafka2', 'kafka3'] as const).map((k) => `127.0.0.1:${this.port(k)}`).join(','),
      SCHEMA_REGISTRY_URL: `http://127.0.0.1:${this.port('registry')}/apis/ccompat/v7`,
      // ch-1 of the four (deploy/local/cluster/clickhouse.sh); reads go through its Distributed tables (H44).
      CLICKHOUSE_URL: `http://127.0.0.1:${this.port('clickhouseHttp')}`,
      CLICKHOUSE_CLUSTER: 'tracking',
      TOPIC_REPLICATION_FACTOR: '3',
      TOPIC_MIN_INSYNC_REPLICAS: '2',
    }
  }

  async up(): Promise<number> {
    const t0 = Date.now()
    await this.script('up', 600_000)
    return Date.now() - t0
  }

  async down(): Promise<void> {
    await this.script('down', 180_000)
  }

  pid(c: ClusterComponent): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.dir, 'run', `${c}.pid`), 'utf8').trim())
      return pid > 0 && pidAlive(pid) ? pid : undefined
    } catch {
      return undefined
    }
  }

  async kill(c: ClusterComponent): Promise<void> {
    const pid = this.pid(c)
    if (!pid) throw new StackError(`${c} is not running in ${this.dir}`)
    process.kill(pid, 'SIGKILL')
    await waitGone(pid, 10_000)
  }

  private async script(cmd: 'up' | 'down', timeout: number): Promise<void> {
    mkdirSync(this.dir, { recursive: true })
    // A CLUSTER_* override in the caller's environment would move a port away from where the drill looks.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLUSTER_')))
    const env = {
      ...inherited,
      ...this.servicesEnv,
      CLUSTER_DIR: this.dir,
      CLUSTER_PORT_BASE: String(this.portBase),
      // The dashboard is not part of what the drill checks; one process less on a small machine.
      CLUSTER_WITH_DASHBOARD: '0',
    }
    try {
      const r = await promisify(execFile)(
        'bash',
        [join(this.root, 'deploy/local/stack.sh'), cmd, '--profile', 'cluster'],
        { cwd: this.root, env, timeout },
      )
      appendFileSync(this.logFile, r.stdout + r.stderr)
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string }
      appendFileSync(this.logFile, (e.stdout ?? '') + (e.stderr ?? ''))
      throw new StackError(
        `stack.sh ${cmd} --profile cluster failed for ${this.dir}: ${(e.stderr ?? e.message).trim().split('\n').slice(-12).join('\n')}`,
        { cause: err },
      )
    }
  }
}
