// The projector's configuration: read once at start from an env object, validated.
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import {
  readEnv,
  commonSpec,
  commonConfig,
  v,
  checkLiveToken,
  requireSecret,
  ConfigError,
  type CommonConfig,
} from '../../shared/src/env.js'
import { privacySpec, privacyConfig, type PrivacyConfig } from '../../shared/src/privacy/crypto/privacy-config.js'
import { MUTATION_WAIT_MS_DEFAULT } from './clickhouse/mutation-places.js'

const spec = {
  ...commonSpec,
  ...privacySpec,
  PROJECTOR_HOST: v.str('127.0.0.1'),
  PROJECTOR_PORT: v.int(8081, 0, 65535),
  PROJECTOR_GROUP_ID: v.str('tracking-projector'),
  PROJECTOR_MAX_ROWS: v.int(10_000, 1, 1_000_000),
  PROJECTOR_MAX_WAIT_MS: v.int(300, 1, 60_000),
  PROJECTOR_RETRIES: v.int(10, 0, 1000),
  PROJECTOR_DRAIN_MS: v.int(30_000, 0, 600_000),
  LIVE_TOKEN: v.optionalStr(),
  LIVE_BUFFER_BYTES: v.int(1024 * 1024, 16 * 1024, 256 * 1024 * 1024),
  LIVE_MAX_STREAMS: v.int(1000, 1, 1_000_000),
  LIVE_MAX_STREAMS_PER_ACCOUNT: v.int(20, 1, 100_000),
  REPLAY_FETCH_PARTITION_BYTES: v.int(4 * 1024 * 1024, 1024, 256 * 1024 * 1024),
  REPLAY_MAX_ROWS: v.int(50_000, 1, 1_000_000),
  /** A26: a replay's insert buffer writes by size; this wait only bounds a buffer that stops filling. */
  REPLAY_MAX_WAIT_MS: v.int(5_000, 1, 600_000),
  /** A30: threads a replay shares the partitions over (`--workers`), each holding every data key. */
  REPLAY_WORKERS: v.int(Math.min(2, availableParallelism()), 1, 64),
  /** H35: test-key rows older than this many days are deleted from events and identifies; 0 keeps them. */
  TEST_RETENTION_DAYS: v.int(0, 0, 36_500),
  /** A17: how often the erasure worker reads the keys topic to see a tombstoned person's keys gone from disk. */
  ERASURE_DISK_CHECK_MS: v.int(600_000, 100, 86_400_000),
  /** A12: ms before the erasure worker tries a failed step of a request again. */
  ERASURE_RETRY_MS: v.int(10_000, 100, 3_600_000),
  /** H85: the longest the erasure purge and the account retention wait for ClickHouse's mutations. */
  MUTATION_WAIT_MS: v.int(MUTATION_WAIT_MS_DEFAULT, 100, 86_400_000),
  /** U25: ms between the recounts of the closed dirty hours of event_counts_hourly (HOURLY_COUNTS on). */
  HOURLY_RECOUNT_MS: v.int(60_000, 100, 3_600_000),
  /** A21: data keys the decode step holds with their continued stream decipher (a bounded cache). */
  PRIVACY_OPEN_CACHE_ENTRIES: v.int(10_000, 2, 100_000_000),
  /** A24: the most keys a replay holds opened (twice the keys on the keys topic, up to this). */
  REPLAY_OPEN_CACHE_ENTRIES: v.int(200_000, 2, 100_000_000),
  /** A40: the jemalloc a replay over sealed records runs with: `auto` (Debian's, when installed), `off`, or a path. */
  REPLAY_JEMALLOC: v.str('auto'),
}

export interface ProjectorConfig extends CommonConfig {
  host: string
  port: number
  groupId: string
  maxRows: number
  maxWaitMs: number
  retries: number
  /** On SIGTERM, how long a write still waiting for ClickHouse may finish before it is given up (its records are re-read). */
  drainMs: number
  /** The dashboard's service secret for reading an account's live feed (the only credential /live accepts). Empty: off. */
  liveToken: string
  /** The live feed (U3): bytes a stream may hold unsent before it is cut off, open streams in total and per account. */
  live: { bufferBytes: number; maxStreams: number; maxStreamsPerAccount: number }
  /** How many bytes a replay fetches per partition in one Kafka fetch (kafkajs maxBytesPerPartition). */
  replayFetchPartitionBytes: number
  /** Rows per ClickHouse insert in a replay (bench/HISTORY.md: larger inserts cost the server less per row than the live projector's). */
  replayMaxRows: number
  replayMaxWaitMs: number
  /** A30: threads a replay shares the partitions over, each holding every data key. */
  replayWorkers: number
  /** Days test-key rows are kept (H35); 0: kept for ever. */
  testRetentionDays: number
  /** A15: crypto-shredding of the personal fields. */
  privacy: PrivacyConfig
  /** A17: ms between the erasure worker's looks at the keys topic (the receipt's disk_gone_at). */
  erasureDiskCheckMs: number
  /** A12: ms before an erasure whose step failed is tried again by the running worker. */
  erasureRetryMs: number
  /** H85: MUTATION_WAIT_MS. */
  mutationWaitMs: number
  /** U25: ms between the recounts of the hourly counts. */
  hourlyRecountMs: number
  /** A21: keys held with their continued stream decipher for opening sealed records (each costs memory). */
  openCacheEntries: number
  /** A24: the most keys a replay holds that way (replayOpenEntries: twice the keys on the topic, up to this). */
  replayOpenCacheEntries: number
  /** A40: `auto`, `off`, or the path of the jemalloc a sealed replay preloads (own-process.ts). */
  replayJemalloc: string
}

export function loadProjectorConfig(env: Record<string, string | undefined>): ProjectorConfig {
  const e = readEnv(spec, env)
  checkLiveToken(e.LIVE_TOKEN)
  if (e.REQUIRE_SECRETS) requireSecret(e, 'LIVE_TOKEN')
  // Retention deletes with ALTER TABLE ... DELETE on the tables by name, which on a cluster are Distributed
  // tables (H44) that take no ALTER: refused at start rather than failing every pass.
  if (e.TEST_RETENTION_DAYS > 0 && e.CLICKHOUSE_CLUSTER)
    throw new ConfigError(
      'TEST_RETENTION_DAYS',
      'is not supported with CLICKHOUSE_CLUSTER (docs/design.md H44): leave it 0',
    )
  // A24: a replay never holds fewer opened keys than the live projector.
  if (e.REPLAY_OPEN_CACHE_ENTRIES < e.PRIVACY_OPEN_CACHE_ENTRIES)
    throw new ConfigError(
      'REPLAY_OPEN_CACHE_ENTRIES',
      'must be at least PRIVACY_OPEN_CACHE_ENTRIES (docs/design.md A24)',
    )
  // A40: a path is checked now; the dynamic loader would only warn and go on without it.
  if (e.REPLAY_JEMALLOC !== 'auto' && e.REPLAY_JEMALLOC !== 'off' && !existsSync(e.REPLAY_JEMALLOC))
    throw new ConfigError('REPLAY_JEMALLOC', 'names no file: give the path of libjemalloc.so.2, auto, or off')
  return {
    ...commonConfig(e),
    host: e.PROJECTOR_HOST,
    port: e.PROJECTOR_PORT,
    groupId: e.PROJECTOR_GROUP_ID,
    maxRows: e.PROJECTOR_MAX_ROWS,
    maxWaitMs: e.PROJECTOR_MAX_WAIT_MS,
    retries: e.PROJECTOR_RETRIES,
    drainMs: e.PROJECTOR_DRAIN_MS,
    liveToken: e.LIVE_TOKEN,
    live: {
      bufferBytes: e.LIVE_BUFFER_BYTES,
      maxStreams: e.LIVE_MAX_STREAMS,
      maxStreamsPerAccount: e.LIVE_MAX_STREAMS_PER_ACCOUNT,
    },
    replayFetchPartitionBytes: e.REPLAY_FETCH_PARTITION_BYTES,
    replayMaxRows: e.REPLAY_MAX_ROWS,
    replayMaxWaitMs: e.REPLAY_MAX_WAIT_MS,
    replayWorkers: e.REPLAY_WORKERS,
    testRetentionDays: e.TEST_RETENTION_DAYS,
    privacy: privacyConfig(e),
    erasureDiskCheckMs: e.ERASURE_DISK_CHECK_MS,
    erasureRetryMs: e.ERASURE_RETRY_MS,
    mutationWaitMs: e.MUTATION_WAIT_MS,
    hourlyRecountMs: e.HOURLY_RECOUNT_MS,
    openCacheEntries: e.PRIVACY_OPEN_CACHE_ENTRIES,
    replayOpenCacheEntries: e.REPLAY_OPEN_CACHE_ENTRIES,
    replayJemalloc: e.REPLAY_JEMALLOC,
  }
}
