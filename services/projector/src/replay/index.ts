// The replay subsystem (A1, A5): rebuild the ClickHouse projections from the topics, into the
// live tables (idempotent, A5) or into a fresh database that can then be swapped in. Entered
// through runReplayCommand, which the CLI (cli.ts, `npm run replay`) and the tests call.
import { createProducer, type Admin, type Kafka } from '../../../shared/src/kafka/client.js'
import { Codec, createRegistry } from '../../../../schemas/codec.js'
import { applyMigrations } from '../clickhouse/apply-migrations.js'
import { createClickHouse } from '../../../shared/src/clickhouse.js'
import { createKafka } from '../../../shared/src/kafka.js'
import type { Logger } from '../../../shared/src/log.js'
import type { ProjectorConfig } from '../config.js'
import { ClickHouseWriter } from '../clickhouse/writer.js'
import type { IdFilter } from '../clickhouse/id-filter.js'
import type { Metrics } from '../consume/metrics.js'
import type { RowBuilding } from '../consume/projection.js'
import type { ReplayCommand } from './args.js'
import { createFreshDatabase, freshDatabaseName, swapDatabases, type SwapResult } from './fresh.js'
import { planReplay, totalRecords, type PartitionRange } from './plan.js'
import type { ReplayProgress, ReplaySummary } from './progress.js'
import { replay } from './replayer.js'
import { loadStoredIds } from './stored-ids.js'
import { ErasureSet } from '../../../shared/src/privacy/erasure-set.js'
import { Pseudonyms } from '../../../shared/src/privacy/erasure-identity.js'
import { followErasures } from '../../../shared/src/privacy/erasures-log.js'
import { writeUsageStubs, type UsageStub } from '../privacy/usage-stubs.js'
import { loadRetention } from '../../../shared/src/privacy/retention-log.js'
import { KeysFollower } from '../privacy/keys-holder.js'
import { RecordOpener } from '../privacy/record-opener.js'
import { replayOpenEntries } from '../privacy/recent-keys.js'
import { countSettings, hourMarksFor } from '../rollup/hour-marks.js'
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

export async function runReplayCommand(cfg: ProjectorConfig, cmd: ReplayCommand, io: ReplayIo): Promise<ReplayReport> {
  const { log } = io
  const note = io.note ?? (() => undefined)
  const ch = await createClickHouse(cfg.clickhouse)
  const kafka = createKafka({ ...cfg.kafka, clientId: `${cfg.kafka.clientId}-replay` }, log)
  const admin = kafka.admin()
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 5 })
  const keys = new KeysFollower(kafka, cfg.topics.keys!, cfg.privacy.masterKey, log, cfg.openCacheEntries)
  try {
    await admin.connect()
    const codec = new Codec(createRegistry(cfg.registryUrl, cfg.registryAuth))
    await codec.register(cfg.topics)
    await producer.connect()

    const live = cfg.clickhouse.database
    await applyMigrations(cfg.clickhouse, live, (m) => log.info(m))
    const topicNames = cmd.topics.map((t) => cfg.topics[t])
    const ranges = await planReplay(admin, topicNames, cmd.from)
    note(
      `replay plan: ${totalRecords(ranges).toLocaleString('en-US')} offsets (records and transaction markers) from ${ranges.filter((r) => r.end > r.start).length} partition(s) of ${topicNames.join(', ')}`,
    )
    for (const r of ranges) if (r.end > r.start) note(`  ${r.topic}[${r.partition}] offsets ${r.start}..${r.end - 1n}`)

    let database = live
    if (cmd.target === 'fresh') {
      database = cmd.database ?? freshDatabaseName(live)
      await createFreshDatabase(cfg.clickhouse, database, log)
      note(`fresh database ${database} created with the migrations applied`)
    } else {
      note(`target: the live tables in ${live} (idempotent: exact reads are unchanged by a repeated replay)`)
    }
    // The ids stored when the replay begins (none in a new fresh database) and those it writes: only
    // records whose id may be among them need the H16 lookup (stored-ids.ts).
    const stored = await storedIdFilter(ch, database, totalRecords(ranges), note, log)
    const common = {
      dlqTopic: cfg.topics.dlq,
      dlq: cmd.dlq,
      retries: cfg.retries,
      maxRows: cfg.replayMaxRows,
      // A26: a replay always has a backlog, so its inserts are full ones; the final flush writes the tail.
      maxWaitMs: cfg.replayMaxWaitMs,
      fetchPartitionBytes: cfg.replayFetchPartitionBytes,
    }
    const erased = await loadErasures(kafka, admin, codec, cfg, log)
    note(
      `${erased.size.toLocaleString('en-US')} erased people: their records are not replayed, their events still count in usage_monthly_sharded (A12)`,
    )
    const retained = await loadRetention(kafka, codec, cfg.topics.accounts, log)
    // One cutoff per account for the whole replay: a record is skipped by the same rule throughout.
    const at = (io.now ?? Date.now)()
    note(
      `${retained.size.toLocaleString('en-US')} accounts keep their events for a limited time: older records are not replayed, their events still count in usage_monthly_sharded (H60)`,
    )
    // A16: the keys topic is read to its end before any record (every key is written before its records).
    const keysTopic = (await admin.listTopics()).includes(cfg.topics.keys!)
    if (keysTopic) await keys.start()
    // A24: a replay holds every key it opens (up to REPLAY_OPEN_CACHE_ENTRIES), so its streams continue.
    keys.holder.holdOpened(replayOpenEntries(keys.holder.size, cfg.openCacheEntries, cfg.replayOpenCacheEntries))
    note(
      `${keys.holder.size.toLocaleString('en-US')} data keys held: sealed records are opened; one whose key is gone (erased, or its month expired) is not replayed, its event still counts in usage_monthly_sharded (A16)`,
    )
    const sealed = (db: string) =>
      keysTopic
        ? { opener: new RecordOpener(keys.holder), keepUsage: (stubs: UsageStub[]) => writeUsageStubs(ch, db, stubs) }
        : undefined
    const deps = { kafka, producer, codec, log, metrics: io.metrics }
    // Read once, at the start: with no account keeping less than for ever, no record's account is read.
    const retention = (db: string) =>
      retained.size === 0
        ? undefined
        : {
            cutoffOf: (accountId: string) => retained.cutoffOf(accountId, at),
            keepUsage: (stubs: UsageStub[]) => writeUsageStubs(ch, db, stubs),
          }
    const erasures = (db: string) => ({
      set: erased,
      keepUsage: (stubs: UsageStub[]) => writeUsageStubs(ch, db, stubs),
    })
    const progress = (phase: 'replay' | 'catch-up') => (p: ReplayProgress) => {
      io.metrics?.replayProgress(p)
      io.onProgress?.(p, phase)
    }
    const summary = await replay(
      {
        ...deps,
        erasures: erasures(database),
        retention: retention(database),
        sealed: sealed(database),
        sink: new ClickHouseWriter(ch, database, {
          storedIds: stored.filter,
          hourMarks: hourMarksFor(ch, database, cfg),
        }),
      },
      {
        ...common,
        ranges,
        rows: stored.rows,
        onProgress: progress('replay'),
      },
    )
    const report: ReplayReport = { database, ranges, summary }
    // U25: the replayed hours are counted now that they are written, so the tables swapped in need no
    // recount; hours still open stay dirty for the live projector's. A fresh database has no other writer,
    // so its marks need not settle; the live one has the live projector's.
    const settleMs = cmd.target === 'fresh' ? 0 : undefined
    if (cfg.hourlyCounts) await new HourRecount(ch, database, log, { ...countSettings(cfg), settleMs }).runOnce()

    if (cmd.target === 'fresh' && cmd.swap) {
      const swapped = await swapDatabases(ch, live, database, log)
      report.swap = { ...swapped, live, previous: database }
      note(
        `swapped ${swapped.tables.join(', ')} into ${live}; the previous tables are now in ${database} (DROP DATABASE ${database} when satisfied)`,
      )
      // Records appended while the fresh replay ran went to the old tables: replay them into the swapped-in ones.
      const rest = await planReplay(admin, topicNames, { kind: 'positions', starts: summary.ends })
      report.catchUp = await replay(
        {
          ...deps,
          erasures: erasures(live),
          retention: retention(live),
          sealed: sealed(live),
          sink: new ClickHouseWriter(ch, live, { hourMarks: hourMarksFor(ch, live, cfg) }),
        },
        {
          ...common,
          ranges: rest,
          // Records appended while the fresh replay ran: new ones, written (H69).
          rows: 'at-decode',
          onProgress: progress('catch-up'),
        },
      )
    }
    return report
  } finally {
    await keys.stop()
    await producer.disconnect().catch(() => undefined)
    await admin.disconnect().catch(() => undefined)
    await ch.close().catch(() => undefined)
  }
}

/** Every erasure on the erasures topic (A12), read to its end before the replay starts: a replay
 * without them would bring erased people back, so a topic that cannot be read stops the replay. */
async function loadErasures(
  kafka: Kafka,
  admin: Admin,
  codec: Codec,
  cfg: ProjectorConfig,
  log: Logger,
): Promise<ErasureSet> {
  // A22: matched by pseudonym, so sealed and clear records of a pseudonymous erasure are both skipped.
  const set = new ErasureSet(new Pseudonyms(cfg.privacy.masterKey))
  // No topic yet (services that create it never started since this version): nothing was ever erased.
  if (!(await admin.listTopics()).includes(cfg.topics.erasures!)) return set
  const follower = await followErasures(kafka, codec, cfg.topics.erasures!, (e) => set.apply(e), log, {
    groupPrefix: 'replay-erasures',
  })
  try {
    await follower.ready
  } finally {
    await follower.stop()
  }
  return set
}

/**
 * The ids stored in the live tables at the start, for the H16 lookups (stored-ids.ts). Without them
 * (too many, or the read failed) every record with a message_id is looked up, which is only slower.
 * Rows are built after the lookup unless the tables were known to hold no ids (H69).
 */
async function storedIdFilter(
  ch: Awaited<ReturnType<typeof createClickHouse>>,
  database: string,
  records: number,
  note: (line: string) => void,
  log: Logger,
): Promise<{ filter: IdFilter | undefined; rows: RowBuilding }> {
  try {
    const loaded = await loadStoredIds(ch, database, records)
    if (!loaded.filter) {
      note(`every record with a message_id is looked up before it is written (H16): ${loaded.reason}`)
      return { filter: undefined, rows: 'after-lookup' }
    }
    note(
      `${loaded.ids.toLocaleString('en-US')} stored ids read in ${(loaded.ms / 1000).toFixed(1)}s: only records whose id may be among them are looked up before they are written (H16)`,
    )
    return { filter: loaded.filter, rows: loaded.ids > 0 ? 'after-lookup' : 'at-decode' }
  } catch (err) {
    log.warn('stored ids not read: every record with a message_id is looked up', { err })
    note(
      `every record with a message_id is looked up before it is written (H16): the stored ids could not be read (${(err as Error).message})`,
    )
    return { filter: undefined, rows: 'after-lookup' }
  }
}
