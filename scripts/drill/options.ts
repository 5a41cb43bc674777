// Command-line options of `npm run drill`, read once. The drill's stack and services get their own
// directory and ports (DRILL_* variables or flags), never the shared stack's: the drill kills them.
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { FAULT_NAMES, type FaultName } from './faults.js'

export const QUICK_FAULTS: FaultName[] = ['ingest-kill', 'kafka-stall', 'projector-kill']

export interface DrillOptions {
  faults: FaultName[]
  /** Single events per second on /v1/event. */
  rate: number
  /** Batches of `batchSize` events per second on /v1/events (0: none). */
  batchRate: number
  batchSize: number
  baselineSeconds: number
  recoverySeconds: number
  stallSeconds: number
  outageSeconds: number
  /** Upper bound on waiting for the projector to catch up after the load stops. */
  catchUpTimeoutSeconds: number
  keepStack: boolean
  stackDir: string
  ports: {
    kafka: number
    kafkaController: number
    registry: number
    clickhouseHttp: number
    clickhouseTcp: number
    ingest: number
    ingestAdmin: number
    projector: number
  }
  markdownFile?: string
  jsonFile?: string
}

export const USAGE = `usage: npm run drill -- [--quick] [--faults a,b,c] [--rate N] [--keep-stack] [--markdown FILE] [--json FILE]
  faults: ${FAULT_NAMES.join(', ')}
  --quick             ${QUICK_FAULTS.join(', ')} with short recovery (1-3 minutes)
  --rate N            single events per second (default 120); --batch-rate N batches of 10 per second (default 1)
  --recovery S        seconds between faults (default 20, quick 10); --stall S (40); --outage S (30)
  --keep-stack        leave the drill's stack running afterwards
  --stack-dir DIR     default .stack-drill; ports: --kafka-port 29092 --kafka-controller-port 29093
                      --registry-port 28081 --clickhouse-http-port 28123 --clickhouse-tcp-port 29000
                      --ingest-port 28080 --ingest-admin-port 28090 --projector-port 28082
                      (or DRILL_<NAME>, e.g. DRILL_KAFKA_PORT)`

/** The shared stack's default ports: the drill refuses them so it can never kill that stack. */
const SHARED_PORTS = new Set([19092, 19093, 18081, 18123, 19000, 8080, 8081, 8082, 8090])

export class OptionsError extends Error {
  readonly code = 'DRILL_OPTIONS'
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>, root: string): DrillOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      faults: { type: 'string' },
      quick: { type: 'boolean' },
      rate: { type: 'string' },
      'batch-rate': { type: 'string' },
      recovery: { type: 'string' },
      stall: { type: 'string' },
      outage: { type: 'string' },
      baseline: { type: 'string' },
      'catch-up-timeout': { type: 'string' },
      'keep-stack': { type: 'boolean' },
      'stack-dir': { type: 'string' },
      'kafka-port': { type: 'string' },
      'kafka-controller-port': { type: 'string' },
      'registry-port': { type: 'string' },
      'clickhouse-http-port': { type: 'string' },
      'clickhouse-tcp-port': { type: 'string' },
      'ingest-port': { type: 'string' },
      'ingest-admin-port': { type: 'string' },
      'projector-port': { type: 'string' },
      markdown: { type: 'string' },
      json: { type: 'string' },
    },
  })
  const num = (name: string, raw: string | undefined, def: number, min = 0, max = 1e6): number => {
    if (raw === undefined || raw === '') return def
    const n = Number(raw)
    if (!Number.isFinite(n) || n < min || n > max)
      throw new OptionsError(`--${name}: expected a number from ${min} to ${max}, got ${JSON.stringify(raw)}`)
    return n
  }
  const port = (flag: string, def: number) => {
    const p = num(
      flag,
      (values as Record<string, string | undefined>)[flag] ?? env[`DRILL_${flag.replace(/-/g, '_').toUpperCase()}`],
      def,
      1,
      65535,
    )
    if (SHARED_PORTS.has(p))
      throw new OptionsError(
        `--${flag} ${p} is a port of the shared stack or services; the drill kills what it runs, so it needs its own`,
      )
    return p
  }
  const quick = values.quick === true
  const faults = values.faults
    ? values.faults
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : quick
      ? QUICK_FAULTS
      : [...FAULT_NAMES]
  for (const f of faults)
    if (!(FAULT_NAMES as readonly string[]).includes(f))
      throw new OptionsError(`unknown fault ${f}; known: ${FAULT_NAMES.join(', ')}`)
  const stackDir = values['stack-dir'] ?? env.DRILL_STACK_DIR ?? join(root, '.stack-drill')
  if (stackDir.replace(/\/+$/, '') === join(root, '.stack'))
    throw new OptionsError('--stack-dir must not be the shared stack (.stack)')
  const ports = {
    kafka: port('kafka-port', 29092),
    kafkaController: port('kafka-controller-port', 29093),
    registry: port('registry-port', 28081),
    clickhouseHttp: port('clickhouse-http-port', 28123),
    clickhouseTcp: port('clickhouse-tcp-port', 29000),
    ingest: port('ingest-port', 28080),
    ingestAdmin: port('ingest-admin-port', 28090),
    projector: port('projector-port', 28082),
  }
  if (new Set(Object.values(ports)).size !== Object.values(ports).length)
    throw new OptionsError('the drill ports must all differ')
  return {
    faults: faults as FaultName[],
    rate: num('rate', values.rate, 120, 1, 5000),
    batchRate: num('batch-rate', values['batch-rate'], 1, 0, 100),
    batchSize: 10,
    baselineSeconds: num('baseline', values.baseline, quick ? 5 : 10, 1, 600),
    recoverySeconds: num('recovery', values.recovery, quick ? 10 : 20, 1, 600),
    stallSeconds: num('stall', values.stall, 40, 1, 600),
    outageSeconds: num('outage', values.outage, 30, 1, 600),
    catchUpTimeoutSeconds: num('catch-up-timeout', values['catch-up-timeout'], 180, 10, 3600),
    keepStack: values['keep-stack'] === true,
    stackDir,
    ports,
    markdownFile: values.markdown,
    jsonFile: values.json,
  }
}
