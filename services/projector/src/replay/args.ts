// Command-line options of `npm run replay`, parsed and checked without touching any server.
import { parseArgs } from 'node:util'
import type { ReplayFrom } from './plan.js'
import { AppError } from '../../../shared/src/errors.js'

export type TopicName = 'events' | 'identifies'

export interface ReplayCommand {
  topics: TopicName[]
  from: ReplayFrom
  target: 'live' | 'fresh'
  /** With target fresh: swap the fresh tables in place of the live ones afterwards. */
  swap: boolean
  /** With target fresh: the database to create (default `<db>_replay_<timestamp>`). */
  database?: string
  dlq: boolean
  json: boolean
  /** Serve the replay's Prometheus metrics on this port (HOST) while it runs. */
  metricsPort?: number
  /** A30: threads the partitions are shared over (default REPLAY_WORKERS). */
  workers?: number
}

export const USAGE = `usage: npm run replay -- [options]
  --topic events|identifies|all     topics to replay (default all)
  --from-beginning                  from the first retained record (default)
  --from-timestamp ISO              from the first record Kafka appended at or after this time
  --partition P --from-offset A [--to-offset B]
                                    one partition's offsets A..B inclusive (needs --topic events|identifies)
  --target live|fresh               live: the live tables (idempotent, A5); fresh: a new database
                                    <db>_replay_<timestamp> with the migrations applied (default live);
                                    its aggregating views are filled once after the replay (A37)
  --database NAME                   with --target fresh: the new database's name (a replay into it that
                                    stopped before filling its views is completed by the next)
  --swap                            with --target fresh: swap the fresh tables in place of the live ones,
                                    then catch up on records that arrived during the replay
  --no-dlq                          count undecodable records instead of sending them to the DLQ again
  --json                            print the summary as JSON on stdout
  --metrics-port P                  serve Prometheus metrics (progress, rows, inserts) on HOST:P/metrics while it runs
  --workers N                       share the partitions over N threads (one table of the data keys for all)
                                    (default REPLAY_WORKERS; at most one a partition)
                                    (as many as the cores: run in a child without GC helper threads, A32)
Reads up to the end offsets captured at start, then stops. Progress goes to stderr every second.
Environment: the projector's (KAFKA_BROKERS, CLICKHOUSE_URL, CLICKHOUSE_DATABASE, TOPIC_*, ...).`

export class UsageError extends AppError {
  readonly code = 'USAGE'
  constructor(message: string) {
    super(message, { retriable: false })
  }
}

const offset = (name: string, raw: string | undefined): bigint | undefined => {
  if (raw === undefined) return undefined
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`)
  return BigInt(raw)
}

export function parseReplayArgs(argv: string[]): ReplayCommand | 'help' {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        topic: { type: 'string' },
        'from-beginning': { type: 'boolean' },
        'from-timestamp': { type: 'string' },
        partition: { type: 'string' },
        'from-offset': { type: 'string' },
        'to-offset': { type: 'string' },
        target: { type: 'string' },
        database: { type: 'string' },
        swap: { type: 'boolean' },
        'no-dlq': { type: 'boolean' },
        json: { type: 'boolean' },
        'metrics-port': { type: 'string' },
        workers: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  if (values.help) return 'help'
  const topic = (values.topic as string | undefined) ?? 'all'
  if (!['events', 'identifies', 'all'].includes(topic))
    throw new UsageError(`--topic must be events, identifies or all, got ${topic}`)
  const topics: TopicName[] = topic === 'all' ? ['events', 'identifies'] : [topic as TopicName]

  const modes = [
    values['from-beginning'],
    values['from-timestamp'] !== undefined,
    values['from-offset'] !== undefined || values.partition !== undefined,
  ].filter(Boolean)
  if (modes.length > 1)
    throw new UsageError('choose one of --from-beginning, --from-timestamp, --partition/--from-offset')
  let from: ReplayFrom = { kind: 'beginning' }
  if (values['from-timestamp'] !== undefined) {
    const ms = Date.parse(values['from-timestamp'] as string)
    if (Number.isNaN(ms)) throw new UsageError(`--from-timestamp is not an ISO 8601 time: ${values['from-timestamp']}`)
    from = { kind: 'timestamp', ms }
  } else if (values.partition !== undefined || values['from-offset'] !== undefined) {
    if (topic === 'all') throw new UsageError('an offset range needs --topic events or --topic identifies')
    const partition = offset('--partition', values.partition as string | undefined)
    const fromOffset = offset('--from-offset', values['from-offset'] as string | undefined)
    if (partition === undefined || fromOffset === undefined)
      throw new UsageError('an offset range needs --partition and --from-offset')
    const to = offset('--to-offset', values['to-offset'] as string | undefined)
    if (to !== undefined && to < fromOffset) throw new UsageError('--to-offset is before --from-offset')
    from = { kind: 'offsets', partition: Number(partition), from: fromOffset, to }
  } else if (values['to-offset'] !== undefined) {
    throw new UsageError('--to-offset needs --partition and --from-offset')
  }

  const target = (values.target as string | undefined) ?? 'live'
  if (target !== 'live' && target !== 'fresh') throw new UsageError(`--target must be live or fresh, got ${target}`)
  if (target !== 'fresh' && (values.swap || values.database))
    throw new UsageError('--swap and --database need --target fresh')
  if (values.database !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(values.database as string)) {
    throw new UsageError(`--database must be an identifier, got ${values.database}`)
  }
  const metricsPort = offset('--metrics-port', values['metrics-port'] as string | undefined)
  if (metricsPort !== undefined && metricsPort > 65535n) throw new UsageError('--metrics-port must be a TCP port')
  const workers = offset('--workers', values.workers as string | undefined)
  if (workers !== undefined && (workers < 1n || workers > 64n)) throw new UsageError('--workers must be 1 to 64')
  return {
    topics,
    from,
    target,
    swap: Boolean(values.swap),
    database: values.database as string | undefined,
    dlq: !values['no-dlq'],
    json: Boolean(values.json),
    ...(metricsPort !== undefined ? { metricsPort: Number(metricsPort) } : {}),
    ...(workers !== undefined ? { workers: Number(workers) } : {}),
  }
}
