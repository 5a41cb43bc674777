// The replay subsystem (A1, A5): rebuild the ClickHouse projections from the topics, into the
// live tables (idempotent, A5) or into a fresh database that can then be swapped in. Entered
// through runReplayCommand, which the CLI (cli.ts, `npm run replay`) and the tests call.
import { applyMigrations } from '../clickhouse/apply-migrations.js'
import type { Logger } from '../../../shared/src/log.js'
import type { ProjectorConfig } from '../config.js'
import type { Metrics } from '../consume/metrics.js'
import type { ReplayCommand } from './args.js'
import { createFreshDatabase, freshDatabaseName, swapDatabases, type SwapResult } from './fresh.js'
import { DeferredViews } from './deferred-views.js'
import { MIGRATION_TIMEOUT_MS, openClickHouse } from '../../../shared/src/clickhouse.js'
import { loadReplayInputs, openReplayClients, readKeysOnce, storedIdFilter, type ReplayInputs } from './inputs.js'
import type { KeysSnapshot } from '../privacy/keys-holder.js'
import { splitRanges } from './parts.js'
import { planReplay, totalRecords, type PartitionRange } from './plan.js'
import type { ReplayProgress, ReplaySummary } from './progress.js'
import { replay } from './replayer.js'
import { replayInParts } from './workers.js'
import { countSettings } from '../rollup/hour-marks.js'
import { HourRecount } from '../rollup/recount.js'

export { parseReplayArgs, USAGE, UsageError, type ReplayCommand } from './args.js'
export { formatProgress, formatSummary, type ReplayProgress, type ReplaySummary } from './progress.js'
export { planReplay, rangesFor, type PartitionRange, type ReplayFrom } from './plan.js'
export { replay } from './replayer.js'
export { swapDatabases, freshDatabaseName } from './fresh.js'

export interface ReplayReport {
  /** The database the replay wrote into. */
  database: string
  ranges: PartitionRange[]
  summary: ReplaySummary
  swap?: SwapResult & { live: string; previous: string }
  /** With --swap: the records that reached the topics while the fresh replay ran. */
  catchUp?: ReplaySummary
}

export interface ReplayIo {
  log: Logger
  onProgress?: (p: ReplayProgress, phase: 'replay' | 'catch-up') => void
  /** One line of information for the operator (stderr in the CLI). */
  note?: (line: string) => void
  /** Counts rows, inserts and dead letters, and the progress of each phase (`--metrics-port`). */
  metrics?: Metrics
  /** The clock the accounts' retention cutoffs are taken at (H60); tests inject one. */
  now?: () => number
}

/** A30: the threads a replay is asked for (`--workers`, else REPLAY_WORKERS); no more run than partitions
 *  with records (splitRanges). */
export function requestedThreads(cfg: ProjectorConfig, cmd: ReplayCommand): number {
  return cmd.workers ?? cfg.replayWorkers
}

export async function runReplayCommand(cfg: ProjectorConfig, cmd: ReplayCommand, io: ReplayIo): Promise<ReplayReport> {
  const { log } = io
  const note = io.note ?? (() => undefined)
  const now = io.now ?? Date.now
  const clients = await openReplayClients(cfg, log)
  const { ch, admin } = clients
  // One cutoff per account for the whole replay, in every part (H60).
  const at = now()
  let inputs: ReplayInputs | undefined
  // A33: in parts, the keys the main thread read once for all of them (and for the catch-up after).
  let keys: KeysSnapshot | undefined
  const loadInputs = async (say: (line: string) => void) =>
    (inputs ??= await loadReplayInputs(cfg, clients, { log, note: say, metrics: io.metrics, now: () => at, keys }))
  try {
    const live = cfg.clickhouse.database
    await applyMigrations(cfg.clickhouse, live, (m) => log.info(m))
    const topicNames = cmd.topics.map((t) => cfg.topics[t])
    const ranges = await planReplay(admin, topicNames, cmd.from)
    note(
      `replay plan: ${totalRecords(ranges).toLocaleString('en-US')} offsets (records and transaction markers) from ${ranges.filter((r) => r.end > r.start).length} partition(s) of ${topicNames.join(', ')}`,
    )
    for (const r of ranges) if (r.end > r.start) note(`  ${r.topic}[${r.partition}] offsets ${r.start}..${r.end - 1n}`)

    let database = live
    let deferred: DeferredViews | undefined
    if (cmd.target === 'fresh') {
      database = cmd.database ?? freshDatabaseName(live)
      await createFreshDatabase(cfg.clickhouse, database, log)
      note(`fresh database ${database} created with the migrations applied`)
      // A37: not on a cluster, whose views are each replica's (H44); there the inserts run them as before.
      if (!cfg.clickhouse.cluster) {
        deferred = await DeferredViews.defer(ch, database)
        note(
          `views filled once after the replay instead of by every insert (A37): ${deferred.views.map((v) => v.name).join(', ')}`,
        )
      }
    } else {
      note(`target: the live tables in ${live} (idempotent: exact reads are unchanged by a repeated replay)`)
    }
    const common = {
      dlqTopic: cfg.topics.dlq,
      dlq: cmd.dlq,
      retries: cfg.retries,
      maxRows: cfg.replayMaxRows,
      // A26: a replay always has a backlog, so its inserts are full ones; the final flush writes the tail.
      maxWaitMs: cfg.replayMaxWaitMs,
      fetchPartitionBytes: cfg.replayFetchPartitionBytes,
    }
    const progress = (phase: 'replay' | 'catch-up') => (p: ReplayProgress) => {
      io.metrics?.replayProgress(p)
      io.onProgress?.(p, phase)
    }
    const shares = splitRanges(ranges, requestedThreads(cfg, cmd))
    let summary: ReplaySummary
    if (shares.length > 1) {
      note(
        `${shares.length} parts, each a thread over ${shares.map((s) => s.filter((r) => r.end > r.start).length).join(' / ')} partition(s), sharing one table of the data keys (A30, A33)`,
      )
      keys = await readKeysOnce(cfg, clients, log)
      summary = await replayInParts(cfg, database, shares, common, at, keys, {
        log,
        note,
        metrics: io.metrics,
        onProgress: progress('replay'),
      })
    } else {
      // The ids stored when the replay begins (none in a new fresh database) and those it writes: only
      // records whose id may be among them need the H16 lookup (stored-ids.ts).
      const stored = await storedIdFilter(ch, database, totalRecords(ranges), note, log)
      const loaded = await loadInputs(note)
      summary = await replay(loaded.deps(database, stored.filter), {
        ...common,
        ranges,
        rows: stored.rows,
        onProgress: progress('replay'),
      })
    }
    const report: ReplayReport = { database, ranges, summary }
    if (deferred) {
      const t0 = Date.now()
      note(`filling the views' tables from the replayed rows (A37)`)
      // A partition's statement runs as long as its rows take: a client of the migrations' timeout.
      const long = openClickHouse(cfg.clickhouse, { requestTimeoutMs: MIGRATION_TIMEOUT_MS })
      try {
        const statements = await deferred.fill(long, (done, total) =>
          note(`  views: ${done}/${total} statement(s) done`),
        )
        note(`${statements} view statement(s) in ${((Date.now() - t0) / 1000).toFixed(1)}s; the views are on again`)
      } finally {
        await long.close()
      }
    }
    // U25: the replayed hours are counted now that they are written, so the tables swapped in need no
    // recount; hours still open stay dirty for the live projector's. A fresh database has no other writer,
    // so its marks need not settle; the live one has the live projector's.
    const settleMs = cmd.target === 'fresh' ? 0 : undefined
    if (cfg.hourlyCounts) {
      // After the last insert, and silent without these lines: a long history's recount takes minutes.
      const t0 = Date.now()
      note('recounting the replayed hours into the counts tables (U25)')
      const hours = await new HourRecount(ch, database, log, { ...countSettings(cfg), settleMs }).runOnce(
        (done, total, hours) =>
          note(`  recount: ${done}/${total} group(s) of months done (${hours.toLocaleString('en-US')} hours)`),
      )
      note(`${hours.toLocaleString('en-US')} hours recounted in ${((Date.now() - t0) / 1000).toFixed(1)}s`)
    }

    if (cmd.target === 'fresh' && cmd.swap) {
      const swapped = await swapDatabases(ch, live, database, log)
      report.swap = { ...swapped, live, previous: database }
      note(
        `swapped ${swapped.tables.join(', ')} into ${live}; the previous tables are now in ${database} (DROP DATABASE ${database} when satisfied)`,
      )
      // Records appended while the fresh replay ran went to the old tables: replay them into the swapped-in ones.
      const rest = await planReplay(admin, topicNames, { kind: 'positions', starts: summary.ends })
      // After a replay in parts, the main thread reads the filters and keys only now (the parts held their own).
      const loaded = await loadInputs(shares.length > 1 ? () => undefined : note)
      report.catchUp = await replay(loaded.deps(live), {
        ...common,
        ranges: rest,
        // Records appended while the fresh replay ran: new ones, written (H69).
        rows: 'at-decode',
        onProgress: progress('catch-up'),
      })
    }
    return report
  } finally {
    await inputs?.stop()
    await clients.close()
  }
}
