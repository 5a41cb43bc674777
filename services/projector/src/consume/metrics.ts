// Projector metrics in the Prometheus text format on GET /metrics (issues 4 and 10), on prom-client
// as ingest's are: lag per partition, rows inserted, rows per insert, insert latency, dead letters,
// dropped duplicates, group joins, replay progress, plus the process's own (CPU, RSS, event-loop
// lag). One registry per instance, so tests that start several projectors in one process do not
// share counters. The hot path only adds to counters; lag is computed when /metrics is read.
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client'
import { kafkaClientInfoGauge } from '../../../shared/src/kafka/client-info.js'
import { ERASURE_STEPS, type ErasureMetrics, type ErasureStep, pendingSteps } from '../privacy/erasure-worker.js'

export type RecordKind = 'event' | 'identify'

/** What a replay reports as it goes (see replay/progress.ts). */
export interface ReplayProgressSample {
  done: number
  remaining: number
  rate: number
}

export class Metrics implements ErasureMetrics {
  readonly registry = new Registry()
  private readonly lag = new Map<string, { topic: string; partition: string; committed: bigint; high: bigint }>()
  private joins = 0
  private subscribers: () => number = () => 0
  private erasuresPending: () => Record<ErasureStep, number> = () => pendingSteps([], false)
  private keysHeld: () => number = () => 0
  private olderKeysReading: () => boolean = () => false
  private keysOfOldMasters: () => number = () => 0
  private buffer: () => { pendingRows: number; peakPendingRows: number; peakInsertRows: number } = () => ({
    pendingRows: 0,
    peakPendingRows: 0,
    peakInsertRows: 0,
  })

  private readonly rows = new Counter({
    name: 'projector_rows_inserted_total',
    help: 'Rows inserted into ClickHouse, by record kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })
  private readonly insertSeconds = new Histogram({
    name: 'projector_insert_seconds',
    help: 'Time to write one batch to ClickHouse, retries included.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  })
  private readonly insertRows = new Histogram({
    name: 'projector_insert_rows',
    help: 'Rows per ClickHouse insert (events and identifies together).',
    buckets: [1, 10, 100, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000],
    registers: [this.registry],
  })
  private readonly dead = new Counter({
    name: 'projector_dlq_records_total',
    help: 'Records sent to the dead-letter topic.',
    registers: [this.registry],
  })
  private readonly schemasMissing = new Counter({
    name: 'projector_registry_schema_missing_total',
    help: 'Decode attempts that found the schema registry without a schema id a record carries (H41: the registry lost it; the partition waits). Alert on any increase.',
    registers: [this.registry],
  })
  private readonly duplicates = new Counter({
    name: 'projector_duplicate_records_dropped_total',
    help: 'Records not inserted because their event_id was already stored or earlier in the batch (a message_id retry, a redelivery after a partial write, a replay).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })
  // A12, A17: the first step's bound is 60 s; the Kafka steps' deadline is a day by default (privacy.md).
  private readonly erasureSteps = new Histogram({
    name: 'projector_erasure_step_seconds',
    help: "Time from an erasure request to a step of its receipt written by this projector: projections_purged (bound 60 s), history_unreadable (the person's data keys tombstoned), disk_gone (no record of those keys left on the keys topic).",
    labelNames: ['step'] as const,
    buckets: [1, 5, 10, 30, 60, 120, 300, 900, 3600, 21_600, 86_400, 172_800],
    registers: [this.registry],
  })
  private readonly erasureFailures = new Counter({
    name: 'projector_erasure_attempts_failed_total',
    help: 'Erasure steps (a purge, the keys tombstoned, a look at the keys topic) that failed and are tried again.',
    registers: [this.registry],
  })
  private readonly replayDone = new Gauge({
    name: 'projector_replay_records_done',
    help: 'Records a replay in this process has written or dead-lettered so far.',
    registers: [this.registry],
  })
  private readonly replayRemaining = new Gauge({
    name: 'projector_replay_offsets_remaining',
    help: 'Offsets (records and transaction markers) a replay in this process has still to read.',
    registers: [this.registry],
  })
  private readonly replayRate = new Gauge({
    name: 'projector_replay_records_per_second',
    help: 'Recent pace of a replay in this process.',
    registers: [this.registry],
  })

  constructor(opts: { processMetrics?: boolean } = {}) {
    const r = this.registry
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: r, prefix: 'projector_' })
    kafkaClientInfoGauge(r, 'projector')
    // Both kinds show from the start, so a graph (or a test) sees 0 rather than no series.
    this.schemasMissing.inc(0)
    this.erasureFailures.inc(0)
    for (const step of ERASURE_STEPS) this.erasureSteps.zero({ step })
    for (const kind of ['event', 'identify'] as const) {
      this.rows.inc({ kind }, 0)
      this.duplicates.inc({ kind }, 0)
    }
    const lag = this.lag
    new Gauge({
      name: 'projector_consumer_lag',
      help: 'Records on the partition not yet projected (high watermark minus resolved offset).',
      labelNames: ['topic', 'partition'] as const,
      registers: [r],
      collect() {
        for (const v of lag.values())
          this.set({ topic: v.topic, partition: v.partition }, Number(v.high > v.committed ? v.high - v.committed : 0n))
      },
    })
    const self = this
    new Gauge({
      name: 'projector_group_joins_total',
      help: 'Times the consumer joined its group (the first join, then one per rebalance; counter).',
      registers: [r],
      collect() {
        this.set(self.joins)
      },
    })
    // H40: rows in all tables, trait rows included; what bounds the projector's memory.
    for (const [name, help, pick] of [
      [
        'projector_pending_rows',
        'Rows (all tables) fetched and not yet through their ClickHouse write.',
        'pendingRows',
      ],
      [
        'projector_pending_rows_peak',
        'The most rows (all tables) ever waiting for their write at once since start.',
        'peakPendingRows',
      ],
      [
        'projector_insert_rows_peak',
        'The most rows (all tables) one ClickHouse write held since start.',
        'peakInsertRows',
      ],
    ] as const) {
      new Gauge({
        name,
        help,
        registers: [r],
        collect() {
          this.set(self.buffer()[pick])
        },
      })
    }
    new Gauge({
      name: 'projector_erasures_pending',
      help: "Erasure requests (each person's latest) whose step is not done yet; the Kafka steps only with sealing on.",
      labelNames: ['step'] as const,
      registers: [r],
      collect() {
        const pending = self.erasuresPending()
        for (const step of ERASURE_STEPS) this.set({ step }, pending[step])
      },
    })
    new Gauge({
      name: 'projector_data_keys_held',
      help: 'Data keys the keys holder holds (A16: every live key on the keys topic, about 80-150 bytes each).',
      registers: [r],
      collect() {
        this.set(self.keysHeld())
      },
    })
    new Gauge({
      name: 'projector_data_keys_older_reading',
      help: "1 while the keys holder reads the keys topic's older keys after a start (A34): a record whose key is older waits until 0.",
      registers: [r],
      collect() {
        this.set(self.olderKeysReading() ? 1 : 0)
      },
    })
    new Gauge({
      name: 'projector_data_keys_old_master',
      help: 'Data keys the keys holder opened with a key of PRIVACY_OLD_MASTER_KEY since its start (A35): 0 after a start once rewrap and the cleaner are done.',
      registers: [r],
      collect() {
        this.set(self.keysOfOldMasters())
      },
    })
    new Gauge({
      name: 'projector_live_subscribers',
      help: 'Clients connected to the /live feed.',
      registers: [r],
      collect() {
        this.set(self.subscribers())
      },
    })
  }

  /** Where the insert buffer's row counts come from (the projector's batcher, H40). */
  insertBuffer(source: () => { pendingRows: number; peakPendingRows: number; peakInsertRows: number }) {
    this.buffer = source
  }

  /** Where the live feed's subscriber count comes from (the hub is built beside the metrics). */
  liveSubscribers(source: () => number) {
    this.subscribers = source
  }

  /** Where the erasures not yet done come from (the erasure worker, built beside the metrics). */
  erasures(source: () => Record<ErasureStep, number>) {
    this.erasuresPending = source
  }

  /** Where the count of held data keys comes from (the keys holder). */
  dataKeys(source: () => number) {
    this.keysHeld = source
  }

  /** Whether the keys holder is still reading the older keys after a start (A34). */
  olderDataKeys(source: () => boolean) {
    this.olderKeysReading = source
  }

  /** How many keys the keys holder opened with an old master since its start (A35). */
  oldMasterDataKeys(source: () => number) {
    this.keysOfOldMasters = source
  }

  stepDone(step: ErasureStep, secondsSinceRequest: number) {
    this.erasureSteps.observe({ step }, secondsSinceRequest)
  }

  attemptFailed() {
    this.erasureFailures.inc()
  }

  committedOffset(topic: string, partition: number, lastOffset: string, highWatermark: string) {
    const key = `${topic}\u0000${partition}`
    const entry = this.lag.get(key)
    const committed = BigInt(lastOffset) + 1n
    const high = BigInt(highWatermark)
    if (entry) {
      entry.committed = committed
      entry.high = high
    } else {
      this.lag.set(key, { topic, partition: String(partition), committed, high })
    }
  }

  inserted(events: number, identifies: number, seconds: number) {
    if (events > 0) this.rows.inc({ kind: 'event' }, events)
    if (identifies > 0) this.rows.inc({ kind: 'identify' }, identifies)
    this.insertSeconds.observe(seconds)
    this.insertRows.observe(events + identifies)
  }

  /** Each join of the consumer group: more than one per process means rebalances. */
  groupJoined() {
    this.joins++
  }

  get groupJoins() {
    return this.joins
  }

  dlq(n: number) {
    if (n > 0) this.dead.inc(n)
  }

  schemaMissing() {
    this.schemasMissing.inc()
  }

  /** Records the writer dropped because their event_id was stored already (H16 retries, replays). */
  duplicatesDropped(kind: RecordKind, n: number) {
    if (n > 0) this.duplicates.inc({ kind }, n)
  }

  replayProgress(p: ReplayProgressSample) {
    this.replayDone.set(p.done)
    this.replayRemaining.set(p.remaining)
    this.replayRate.set(p.rate)
  }

  totalLag(): number {
    let sum = 0n
    for (const { committed, high } of this.lag.values()) sum += high > committed ? high - committed : 0n
    return Number(sum)
  }

  render(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
