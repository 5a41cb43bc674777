// A30: a replay spread over worker threads. The one-part replay decodes, opens and transcodes every
// record in one thread, and that thread, not the machine, bounds its rate (BENCHMARKS.md, "How busy
// the machine is during a replay"). Each part here is that same replayer (part-worker.ts) over a share
// of the partitions (parts.ts), with its own clients and filters, and the keys the main thread read once
// into shared memory (A33), writing into the same database; a partition is read by one part only, so
// each person's records keep their order. The main thread starts the parts once all have loaded, adds up
// their progress, metrics and summaries, and fails the replay, stopping the others, when one part fails.
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Level, Logger } from '../../../shared/src/log.js'
import type { ProjectorConfig } from '../config.js'
import type { PipelineMetrics } from '../consume/projection.js'
import { mergeProgress, mergeSummaries } from './parts.js'
import { totalRecords, type PartitionRange } from './plan.js'
import type { ReplayProgress, ReplaySummary } from './progress.js'
import type { ReplayOptions } from './replayer.js'
import type { KeysSnapshot } from '../privacy/keys-holder.js'

/** What a part is given (structured-cloned into its thread). */
export interface PartTask {
  cfg: ProjectorConfig
  database: string
  ranges: PartitionRange[]
  /** The whole replay's offsets: every part decides whether to read the stored ids as one thread would (H16). */
  planned: number
  options: Pick<ReplayOptions, 'dlqTopic' | 'dlq' | 'retries' | 'maxRows' | 'maxWaitMs' | 'fetchPartitionBytes'> & {
    progressEveryMs?: number
  }
  /** The clock reading the accounts' retention cutoffs are taken at: the same in every part (H60). */
  at: number
  /** A33: the keys topic as the main thread read it, in shared memory (none without a keys topic). */
  keys: KeysSnapshot | undefined
  /** Whether this part says what it loaded (the first one does, for all). */
  notes: boolean
  /** Whether to count rows, inserts and dead letters into the main thread's metrics. */
  metrics: boolean
}

/** What a part tells the main thread. */
export type PartMessage =
  | { kind: 'note'; line: string }
  | { kind: 'log'; level: Level; msg: string; fields: Record<string, unknown> }
  | { kind: 'metric'; name: 'dlq' | 'schemaMissing' | 'inserted'; args: number[] }
  | { kind: 'ready' }
  | { kind: 'progress'; progress: ReplayProgress }
  | { kind: 'done'; summary: ReplaySummary }

export interface PartsIo {
  log: Logger
  note: (line: string) => void
  metrics?: PipelineMetrics
  onProgress?: (p: ReplayProgress) => void
}

// The compiled replay runs part-worker.js. The tests run the TypeScript source, which a worker thread
// does not load through the process's --import hooks (Node 20), so that thread registers tsx's first.
const WORKER = new URL(`./part-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href
const WORKER_CODE = WORKER.endsWith('.ts')
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER)}) })`
  : `import(${JSON.stringify(WORKER)})`

/** One part's thread: its readiness, its end, and its latest progress. */
class Part {
  readonly worker: Worker
  readonly ready: Promise<void>
  readonly done: Promise<ReplaySummary>
  readonly exited: Promise<void>
  progress: ReplayProgress

  constructor(task: PartTask, index: number, io: PartsIo) {
    this.progress = {
      done: 0,
      remaining: totalRecords(task.ranges),
      elapsedMs: 0,
      rate: 0,
    }
    this.worker = new Worker(WORKER_CODE, { eval: true, workerData: task })
    const log = io.log.child({ part: index })
    let ready!: () => void
    let notReady!: (err: unknown) => void
    let done!: (s: ReplaySummary) => void
    let failed!: (err: unknown) => void
    this.ready = new Promise<void>((res, rej) => {
      ready = res
      notReady = rej
    })
    this.done = new Promise<ReplaySummary>((res, rej) => {
      done = res
      failed = rej
    })
    // Whichever comes first settles the part; later ones change nothing.
    const fail = (err: Error) => {
      notReady(err)
      failed(err)
    }
    this.ready.catch(() => undefined)
    this.done.catch(() => undefined)
    this.worker.on('message', (m: PartMessage) => {
      switch (m.kind) {
        case 'note':
          return io.note(m.line)
        case 'log':
          return log[m.level](m.msg, m.fields)
        case 'metric':
          return (io.metrics?.[m.name] as ((...a: number[]) => void) | undefined)?.(...m.args)
        case 'ready':
          return ready()
        case 'progress':
          this.progress = m.progress
          return
        case 'done':
          this.progress = { ...this.progress, remaining: 0, etaMs: 0 }
          return done(m.summary)
      }
    })
    this.worker.on('error', (err) => fail(new Error(`replay part ${index} failed: ${err.message}`, { cause: err })))
    this.exited = new Promise((res) =>
      this.worker.once('exit', (code) => {
        fail(new Error(`replay part ${index} ended (exit code ${code}) before its summary`))
        res()
      }),
    )
  }
}

/**
 * Replays `shares` (splitRanges) into `database`, one worker thread a share. Resolves with the summary of
 * the whole replay, timed from the start of reading (after every part has loaded its keys and ids).
 */
export async function replayInParts(
  cfg: ProjectorConfig,
  database: string,
  shares: PartitionRange[][],
  options: PartTask['options'],
  at: number,
  keys: KeysSnapshot | undefined,
  io: PartsIo,
): Promise<ReplaySummary> {
  const planned = shares.reduce((n, ranges) => n + totalRecords(ranges), 0)
  const metrics = io.metrics !== undefined
  const parts = shares.map(
    (ranges, i) => new Part({ cfg, database, ranges, planned, options, at, keys, notes: i === 0, metrics }, i, io),
  )
  let timer: NodeJS.Timeout | undefined
  let ok = false
  try {
    await Promise.all(parts.map((p) => p.ready))
    const started = Date.now()
    for (const p of parts) p.worker.postMessage('go')
    timer = setInterval(
      () => io.onProgress?.(mergeProgress(parts.map((p) => p.progress))),
      options.progressEveryMs ?? 1000,
    )
    const summaries = await Promise.all(parts.map((p) => p.done))
    const summary = mergeSummaries(summaries, Date.now() - started)
    io.onProgress?.({ ...mergeProgress(parts.map((p) => p.progress)), rate: summary.rate })
    ok = true
    return summary
  } finally {
    clearInterval(timer)
    // A part that is done closes its clients and ends by itself; when one failed, the others are stopped.
    if (!ok) await Promise.all(parts.map((p) => p.worker.terminate()))
    await Promise.all(parts.map((p) => p.exited))
  }
}
