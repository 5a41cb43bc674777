// Ingest metrics in the Prometheus text format on GET /metrics (issues 9 and 10): what an operator
// graphs to see durability and load -- answers by route and status, 429s by limit, 503s by cause,
// Kafka flush latency and size, the append queue, replaced producers, readiness -- plus the
// process's own (CPU, RSS, event-loop lag) for soak runs. One registry per service instance, so
// tests that start several instances in one process do not share counters.
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client'
import { kafkaClientInfoGauge } from '../../../shared/src/kafka/client-info.js'
import type { AppenderStats } from '../kafka/record-appender.js'

export interface IngestMetricsSources {
  /** Records waiting for a producer, across lanes. */
  queuedRecords(): number
  appenderStats(): AppenderStats
  ready(): boolean
  accountsSilenceMs(): number
  /** Where limits are enforced: memory (no REDIS_URL), redis, or local (Redis away, falling back). */
  limiterMode?(): 'memory' | 'redis' | 'local'
}

const LIMITER_MODES = ['memory', 'redis', 'local'] as const

export class IngestMetrics {
  readonly registry = new Registry()
  private readonly requests = new Counter({
    name: 'ingest_requests_total',
    help: 'HTTP answers by route, status and error code (ok for successes).',
    labelNames: ['route', 'status', 'code'] as const,
    registers: [this.registry],
  })
  private readonly items = new Counter({
    name: 'ingest_items_total',
    help: 'Items of accepted requests by outcome: accepted, or the error code of a refused batch item.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })
  private readonly flushSeconds = new Histogram({
    name: 'ingest_kafka_flush_seconds',
    help: 'Time from a flush being sent to Kafka acknowledging it (acks=all), by lane and outcome.',
    labelNames: ['lane', 'outcome'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  })
  private readonly flushRecords = new Histogram({
    name: 'ingest_kafka_flush_records',
    help: 'Records per flush (group commit), by lane.',
    labelNames: ['lane'] as const,
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [this.registry],
  })

  private readonly limiterFallbacks = new Counter({
    name: 'ingest_limiter_fallback_total',
    help: 'Limiter checks answered by the local in-memory limiter because Redis failed, timed out or was being given time to recover.',
    registers: [this.registry],
  })

  constructor(sources: IngestMetricsSources, opts: { processMetrics?: boolean } = {}) {
    const r = this.registry
    new Gauge({
      name: 'ingest_limiter_mode',
      help: '1 for where limits are enforced now: memory (no REDIS_URL), redis (shared), local (Redis away, per-instance fallback).',
      labelNames: ['mode'] as const,
      registers: [r],
      collect() {
        const m = sources.limiterMode?.() ?? 'memory'
        for (const mode of LIMITER_MODES) this.set({ mode }, mode === m ? 1 : 0)
      },
    })
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: r, prefix: 'ingest_' })
    new Gauge({
      name: 'ingest_append_queue_records',
      help: 'Records waiting for a Kafka producer.',
      registers: [r],
      collect() {
        this.set(sources.queuedRecords())
      },
    })
    kafkaClientInfoGauge(r, 'ingest')
    new Gauge({
      name: 'ingest_ready',
      help: '1 when this instance can accept requests (GET /health/ready).',
      registers: [r],
      collect() {
        this.set(sources.ready() ? 1 : 0)
      },
    })
    new Gauge({
      name: 'ingest_accounts_silence_seconds',
      help: 'Seconds since the key table last heard from the accounts topic.',
      registers: [r],
      collect() {
        this.set(sources.accountsSilenceMs() / 1000)
      },
    })
    appenderGauges(r, sources)
  }

  // Children by label values: prom-client hashes the label object on every inc(), which costs
  // more per request than the counting (bench/HISTORY.md). The label sets are few and bounded.
  private readonly requestChildren = new Map<string, { inc(n?: number): void }>()
  private readonly itemChildren = new Map<string, { inc(n?: number): void }>()

  request(route: string, status: number, code: string) {
    const k = `${route} ${status} ${code}`
    let c = this.requestChildren.get(k)
    if (!c) this.requestChildren.set(k, (c = this.requests.labels(route, String(status), code)))
    c.inc()
  }

  limiterFallback() {
    this.limiterFallbacks.inc()
  }

  item(outcome: string, n = 1) {
    if (n <= 0) return
    let c = this.itemChildren.get(outcome)
    if (!c) this.itemChildren.set(outcome, (c = this.items.labels(outcome)))
    c.inc(n)
  }

  private readonly refusals = new Counter({
    name: 'ingest_refusal_records_total',
    help: 'Refusals topic (H66): records written, and refusals dropped at the caps or with a failed drain.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })

  /** One drain of the refusal aggregator (refusals/refusal-publisher.ts). */
  refusalDrain(o: { records: number; droppedCounts: number; droppedSamples: number; failed: boolean }) {
    this.refusals.inc({ outcome: 'written' }, o.records)
    this.refusals.inc({ outcome: 'dropped_count' }, o.droppedCounts)
    this.refusals.inc({ outcome: 'dropped_sample' }, o.droppedSamples)
    if (o.failed) this.refusals.inc({ outcome: 'failed_drain' })
  }

  flush(lane: string, records: number, seconds: number, ok: boolean) {
    this.flushSeconds.observe({ lane, outcome: ok ? 'ok' : 'failed' }, seconds)
    this.flushRecords.observe({ lane }, records)
  }

  render(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}

/** The append queue's and producers' counters, read from the appender's statistics at each scrape. */
function appenderGauges(r: Registry, sources: IngestMetricsSources): void {
  const fromStats = (name: string, help: string, pick: (s: AppenderStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [r],
      collect() {
        this.set(pick(sources.appenderStats()))
      },
    })
  fromStats(
    'ingest_kafka_producers_retired_total',
    'Producers replaced after a failed or timed-out flush (counter).',
    (s) => s.retired,
  )
  fromStats(
    'ingest_kafka_flush_failures_total',
    'Flushes Kafka did not acknowledge (counter); their requests got 503.',
    (s) => s.failures,
  )
  fromStats(
    'ingest_append_shed_total',
    'Requests refused with 503 because the append queue was full (counter).',
    (s) => s.shed,
  )
  fromStats(
    'ingest_append_expired_total',
    'Requests that got 503 after waiting past the flush deadline unsent (counter).',
    (s) => s.expired,
  )
  fromStats(
    'ingest_kafka_flush_refused_total',
    'Flushes whose records Kafka refused (MESSAGE_TOO_LARGE and the like, H37); only the request that caused it fails (counter).',
    (s) => s.refused,
  )
}
