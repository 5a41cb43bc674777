// Options of `npm run drill -- --profile cluster`, read once. The drill runs its own cluster profile
// (its own directory and port block), never a cluster a user started: it kills brokers and instances.
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { OptionsError } from './options.js'

export const CLUSTER_PARTS = [
  'rate-limit',
  'broker-kill',
  'ingest-kill',
  'replica-kill',
  'zookeeper-kill',
  'shard-down',
] as const
export type ClusterPart = (typeof CLUSTER_PARTS)[number]

export interface ClusterDrillOptions {
  parts: ClusterPart[]
  rate: number
  batchRate: number
  batchSize: number
  baselineSeconds: number
  /** Seconds a killed broker or ingest instance stays down before it is started again. */
  downSeconds: number
  recoverySeconds: number
  broker: 1 | 2 | 3
  ingest: 1 | 2
  rateLimitRequests: number
  catchUpTimeoutSeconds: number
  keepStack: boolean
  clusterDir: string
  portBase: number
  markdownFile?: string
  jsonFile?: string
}

export const CLUSTER_USAGE = `usage: npm run drill -- --profile cluster [--parts a,b,c] [--rate N] [--down S] [--keep-stack] [--markdown FILE] [--json FILE]
  parts: ${CLUSTER_PARTS.join(', ')} (default all, in that order)
  --rate N            single events per second through HAProxy (default 100); --batch-rate N batches of 10 per second (default 1)
  --down S            seconds a SIGKILLed broker or instance stays down (default 30); --broker N which broker (1-3, default 2)
  --ingest N          which ingest instance is SIGKILLed (1 or 2, default 1)
  replica-kill SIGKILLs clickhouse-2 (shard 1's replica beside the projector's clickhouse-1), zookeeper-kill
  the ZooKeeper, shard-down both replicas of shard 2 (clickhouse-3 and -4); each restarted after --down S
  --recovery S        seconds after each fault's recovery (default 20); --baseline S (10)
  --rate-limit-requests N   requests of the Hobby key in one minute (default 250; the plan allows 100)
  --keep-stack        leave the drill's cluster running afterwards
  --cluster-dir DIR   default .stack-drill-cluster; --port-base N (default 26000; or DRILL_CLUSTER_DIR, DRILL_CLUSTER_PORT_BASE)`

/** The block of `npm run stack:up -- --profile cluster`: the drill never kills a user's cluster. */
const USER_CLUSTER_BASE = 25000

export function parseClusterOptions(
  argv: string[],
  env: Record<string, string | undefined>,
  root: string,
): ClusterDrillOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      profile: { type: 'string' },
      parts: { type: 'string' },
      rate: { type: 'string' },
      'batch-rate': { type: 'string' },
      baseline: { type: 'string' },
      down: { type: 'string' },
      recovery: { type: 'string' },
      broker: { type: 'string' },
      ingest: { type: 'string' },
      'rate-limit-requests': { type: 'string' },
      'catch-up-timeout': { type: 'string' },
      'keep-stack': { type: 'boolean' },
      'cluster-dir': { type: 'string' },
      'port-base': { type: 'string' },
      markdown: { type: 'string' },
      json: { type: 'string' },
    },
  })
  if (values.profile !== 'cluster')
    throw new OptionsError(`--profile ${values.profile}: only cluster has a drill of its own`)
  const num = (name: string, raw: string | undefined, def: number, min: number, max: number): number => {
    if (raw === undefined || raw === '') return def
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min || n > max)
      throw new OptionsError(`--${name}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`)
    return n
  }
  const parts = values.parts
    ? values.parts
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [...CLUSTER_PARTS]
  for (const p of parts)
    if (!(CLUSTER_PARTS as readonly string[]).includes(p))
      throw new OptionsError(`unknown part ${p}; known: ${CLUSTER_PARTS.join(', ')}`)
  const portBase = num('port-base', values['port-base'] ?? env.DRILL_CLUSTER_PORT_BASE, 26000, 1024, 64000)
  // The block spans base .. base+900 (cluster.sh); it must not overlap the user's cluster profile.
  if (Math.abs(portBase - USER_CLUSTER_BASE) <= 900)
    throw new OptionsError(
      `--port-base ${portBase} overlaps the cluster profile's ports (${USER_CLUSTER_BASE}-${USER_CLUSTER_BASE + 900}); the drill kills what it runs, so it needs its own`,
    )
  const clusterDir = values['cluster-dir'] ?? env.DRILL_CLUSTER_DIR ?? join(root, '.stack-drill-cluster')
  if (clusterDir.replace(/\/+$/, '') === join(root, '.stack', 'cluster'))
    throw new OptionsError('--cluster-dir must not be the cluster profile of the shared stack (.stack/cluster)')
  return {
    parts: parts as ClusterPart[],
    rate: num('rate', values.rate, 100, 1, 5000),
    batchRate: num('batch-rate', values['batch-rate'], 1, 0, 100),
    batchSize: 10,
    baselineSeconds: num('baseline', values.baseline, 10, 1, 600),
    downSeconds: num('down', values.down, 30, 1, 600),
    recoverySeconds: num('recovery', values.recovery, 20, 1, 600),
    broker: num('broker', values.broker, 2, 1, 3) as 1 | 2 | 3,
    ingest: num('ingest', values.ingest, 1, 1, 2) as 1 | 2,
    rateLimitRequests: num('rate-limit-requests', values['rate-limit-requests'], 250, 101, 10_000),
    catchUpTimeoutSeconds: num('catch-up-timeout', values['catch-up-timeout'], 180, 10, 3600),
    keepStack: values['keep-stack'] === true,
    clusterDir,
    portBase,
    markdownFile: values.markdown,
    jsonFile: values.json,
  }
}
