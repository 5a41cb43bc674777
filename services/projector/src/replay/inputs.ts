// What a replay reads before its first record, and the write path it builds from it: the clients, the
// erasures (A12), the accounts' retention (H60), the data keys (A16) and the ids already stored (H16).
// The one-part replay (index.ts) and each part of a replay spread over threads (part-worker.ts, A30)
// load them the same way.
import { createProducer, type Admin, type Kafka, type Producer } from '../../../shared/src/kafka/client.js'
import { Codec, createRegistry } from '../../../../schemas/codec.js'
import { createClickHouse } from '../../../shared/src/clickhouse.js'
import { createKafka } from '../../../shared/src/kafka.js'
import type { Logger } from '../../../shared/src/log.js'
import type { ProjectorConfig } from '../config.js'
import { ClickHouseWriter } from '../clickhouse/writer.js'
import type { IdFilter } from '../clickhouse/id-filter.js'
import type { PipelineMetrics, RowBuilding } from '../consume/projection.js'
import { ErasureSet } from '../../../shared/src/privacy/erasure-set.js'
import { Pseudonyms } from '../../../shared/src/privacy/erasure-identity.js'
import { MasterKeyRing } from '../../../shared/src/privacy/crypto/index.js'
import { followErasures } from '../../../shared/src/privacy/erasures-log.js'
import { writeUsageStubs, type UsageStub } from '../privacy/usage-stubs.js'
import { loadRetention } from '../../../shared/src/privacy/retention-log.js'
import { KeysFollower, type KeysSnapshot } from '../privacy/keys-holder.js'
import { RecordOpener } from '../privacy/record-opener.js'
import { replayOpenEntries } from '../privacy/recent-keys.js'
import { hourMarksFor } from '../rollup/hour-marks.js'
import { loadStoredIds } from './stored-ids.js'
import type { ReplayDeps } from './replayer.js'

export type ClickHouse = Awaited<ReturnType<typeof createClickHouse>>

/** The servers a replay talks to, made at its edge and closed by `close`. */
export interface ReplayClients {
  ch: ClickHouse
  kafka: Kafka
  admin: Admin
  producer: Producer
  codec: Codec
  close(): Promise<void>
}

export async function openReplayClients(cfg: ProjectorConfig, log: Logger): Promise<ReplayClients> {
  const ch = await createClickHouse(cfg.clickhouse)
  const kafka = createKafka({ ...cfg.kafka, clientId: `${cfg.kafka.clientId}-replay` }, log)
  const admin = kafka.admin()
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 5 })
  const close = async () => {
    await producer.disconnect().catch(() => undefined)
    await admin.disconnect().catch(() => undefined)
    await ch.close().catch(() => undefined)
  }
  try {
    await admin.connect()
    const codec = new Codec(createRegistry(cfg.registryUrl, cfg.registryAuth))
    await codec.register(cfg.topics)
    await producer.connect()
    return { ch, kafka, admin, producer, codec, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** The erasures, retention and keys a replay filters and opens its records with. */
export interface ReplayInputs {
  /** The write path into `database`: the filters, the keys, and a writer that looks up `storedIds` (H16). */
  deps(database: string, storedIds?: IdFilter): ReplayDeps
  stop(): Promise<void>
}

/** Reads the erasures, the retention and the keys topic to their ends (side by side) and says what it read. */
export async function loadReplayInputs(
  cfg: ProjectorConfig,
  clients: ReplayClients,
  io: {
    log: Logger
    note: (line: string) => void
    metrics?: PipelineMetrics
    now: () => number
    /** A33: the keys the main thread read once for every thread: only what came after is read here. */
    keys?: KeysSnapshot
  },
): Promise<ReplayInputs> {
  const { ch, kafka, admin, producer, codec } = clients
  const { log, note } = io
  const keys = new KeysFollower(kafka, cfg.topics.keys!, MasterKeyRing.of(cfg.privacy), log, cfg.openCacheEntries, {
    base: io.keys,
  })
  // The three topics are read side by side: each read is mostly waiting on Kafka (a consumer's start, its
  // fetches), and none needs another. A16: the keys topic is read to its end before any record (every key
  // is written before its records).
  const [erased, retained, keysTopic] = await Promise.all([
    loadErasures(kafka, admin, codec, cfg, log),
    loadRetention(kafka, codec, cfg.topics.accounts, log),
    admin.listTopics().then(async (topics) => {
      const has = topics.includes(cfg.topics.keys!)
      if (has) await keys.start()
      return has
    }),
  ]).catch(async (err: unknown) => {
    await keys.stop()
    throw err
  })
  // One cutoff per account for the whole replay: a record is skipped by the same rule throughout.
  const at = io.now()
  note(
    `${erased.size.toLocaleString('en-US')} erased people: their records are not replayed, their events still count in usage_monthly_sharded (A12)`,
  )
  note(
    `${retained.size.toLocaleString('en-US')} accounts keep their events for a limited time: older records are not replayed, their events still count in usage_monthly_sharded (H60)`,
  )
  // A24: a replay holds every key it opens (up to REPLAY_OPEN_CACHE_ENTRIES), so its streams continue.
  keys.holder.holdOpened(replayOpenEntries(keys.holder.size, cfg.openCacheEntries, cfg.replayOpenCacheEntries))
  note(
    `${keys.holder.size.toLocaleString('en-US')} data keys held: sealed records are opened; one whose key is gone (erased, or its month expired) is not replayed, its event still counts in usage_monthly_sharded (A16)`,
  )
  const keepUsage = (db: string) => (stubs: UsageStub[]) => writeUsageStubs(ch, db, stubs)
  return {
    deps: (database, storedIds) => ({
      kafka,
      producer,
      codec,
      log,
      metrics: io.metrics,
      erasures: { set: erased, keepUsage: keepUsage(database) },
      // Read once, at the start: with no account keeping less than for ever, no record's account is read.
      retention:
        retained.size === 0
          ? undefined
          : { cutoffOf: (accountId: string) => retained.cutoffOf(accountId, at), keepUsage: keepUsage(database) },
      sealed: keysTopic ? { opener: new RecordOpener(keys.holder), keepUsage: keepUsage(database) } : undefined,
      sink: new ClickHouseWriter(ch, database, { storedIds, hourMarks: hourMarksFor(ch, database, cfg) }),
    }),
    stop: () => keys.stop(),
  }
}

/**
 * A33: the keys topic read once to its end into shared memory, for the threads of a replay to start from
 * (each then reads only what comes after it); undefined when there is no keys topic.
 */
export async function readKeysOnce(
  cfg: ProjectorConfig,
  clients: ReplayClients,
  log: Logger,
): Promise<KeysSnapshot | undefined> {
  if (!(await clients.admin.listTopics()).includes(cfg.topics.keys!)) return undefined
  const keys = new KeysFollower(
    clients.kafka,
    cfg.topics.keys!,
    MasterKeyRing.of(cfg.privacy),
    log,
    cfg.openCacheEntries,
    {
      shared: true,
    },
  )
  try {
    await keys.start()
  } finally {
    // Stopped before the snapshot: the holder applies nothing after it.
    await keys.stop()
  }
  return keys.holder.snapshot()
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
  const set = new ErasureSet(new Pseudonyms(cfg.privacy.pseudonymKey))
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
 * The ids stored in `database` now, for the H16 lookups (stored-ids.ts). Without them (too many, or
 * the read failed) every record with a message_id is looked up, which is only slower. Rows are built
 * after the lookup unless the tables were known to hold no ids (H69).
 */
export async function storedIdFilter(
  ch: ClickHouse,
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
