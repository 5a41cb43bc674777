// The projector's consumer of the refusals topic (H65, H66, H57): each record (one account's refused
// requests from one ingest drain) becomes rows of refusals_by_minute and refused_samples (migration
// 011). A consumer group of its own, apart from the event walk (its records are few and best effort,
// and must never hold events back), committed after the rows are inserted: at-least-once (A5), which
// the tables absorb (refusal-rows.ts). From the topic's start, so a replay rebuilds both tables (A1).
import type { ClickHouseClient } from '@clickhouse/client'
import { Counter, type Registry } from 'prom-client'
import type { Codec } from '../../../../schemas/codec.js'
import { RegistryUnavailableError } from '../../../../schemas/codec.js'
import type { RefusalsRecord } from '../../../../schemas/records.js'
import type { Consumer, Kafka } from '../../../shared/src/kafka/client.js'
import type { Logger } from '../../../shared/src/log.js'
import type { ProjectorConfig } from '../config.js'
import { refusalRows, type RefusalCountRow, type RefusedSampleRow } from './refusal-rows.js'
import { pruneRefusals } from './prune.js'

export interface RefusalProjectionDeps {
  kafka: Kafka
  codec: Codec
  ch: ClickHouseClient
  database: string
  topic: string
  groupId: string
  /** On a cluster the day partitions are not dropped here (like H60's job): see docs/design.md H57. */
  prune: boolean
  registry: Registry
  log: Logger
}

export class RefusalProjection {
  private consumer?: Consumer
  private pruneTimer?: NodeJS.Timeout
  private stopped = false
  private readonly records: Counter<'outcome'>

  constructor(private readonly d: RefusalProjectionDeps) {
    this.records = new Counter({
      name: 'projector_refusal_records_total',
      help: 'Refusals records (H66) read from the refusals topic: projected into ClickHouse, or skipped (never decodable).',
      labelNames: ['outcome'] as const,
      registers: [d.registry],
    })
  }

  /** In the background: a failure is logged, never a reason for the projector to stop. */
  start(): void {
    void this.run().catch((err) => this.d.log.error('refusals projection (H57) not started', { err: err as Error }))
    if (this.d.prune) {
      const prune = () =>
        void pruneRefusals(this.d.ch, this.d.database, Date.now()).catch((err) =>
          this.d.log.warn('refusals: old partitions not dropped; tried again in an hour', { err: err as Error }),
        )
      prune()
      this.pruneTimer = setInterval(prune, 3600_000)
      this.pruneTimer.unref()
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.pruneTimer)
    await this.consumer?.disconnect().catch(() => undefined)
  }

  private async run(): Promise<void> {
    const consumer = this.d.kafka.consumer({ groupId: this.d.groupId, maxWaitTimeInMs: 500 })
    this.consumer = consumer
    await consumer.connect()
    if (this.stopped) return void (await consumer.disconnect())
    await consumer.subscribe({ topic: this.d.topic, fromBeginning: true })
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const records: RefusalsRecord[] = []
        for (const m of batch.messages) {
          const r = await this.decode(m.value, batch.partition, m.offset)
          if (r) records.push(r)
        }
        await this.insert(records)
        this.records.inc({ outcome: 'projected' }, records.length)
      },
    })
    this.d.log.info('refusals projection consuming', { topic: this.d.topic, groupId: this.d.groupId })
  }

  /** A record the registry cannot be asked about now is retried (the batch throws); one that can never be
   * decoded is skipped and counted: refusals are best effort (H66). */
  private async decode(value: Buffer | null, partition: number, offset: string): Promise<RefusalsRecord | undefined> {
    if (!value) return undefined
    try {
      const d = await this.d.codec.decode(value)
      if (d.name === 'Refusals') return d.value as RefusalsRecord
    } catch (err) {
      if (err instanceof RegistryUnavailableError) throw err
      this.d.log.warn('refusals record can never be decoded; skipped', { partition, offset, err: err as Error })
    }
    this.records.inc({ outcome: 'skipped' })
    return undefined
  }

  private async insert(records: RefusalsRecord[]): Promise<void> {
    const counts: RefusalCountRow[] = []
    const samples: RefusedSampleRow[] = []
    for (const r of records) {
      const rows = refusalRows(r)
      counts.push(...rows.counts)
      samples.push(...rows.samples)
    }
    const into = async (table: string, values: object[]) => {
      if (values.length > 0)
        await this.d.ch.insert({ table: `${this.d.database}.${table}`, values, format: 'JSONEachRow' })
    }
    await into('refusals_by_minute', counts)
    await into('refused_samples', samples)
  }
}

/** Runs the refusal projection beside a projector service: started once the service has started (the
 * migrations applied, Kafka reached), stopped before it closes its clients. */
export function withRefusalProjection<S extends { start(): Promise<unknown>; close(): Promise<unknown> }>(
  cfg: ProjectorConfig,
  clients: Pick<RefusalProjectionDeps, 'kafka' | 'codec' | 'ch' | 'registry'>,
  log: Logger,
  svc: S,
): S {
  const topic = cfg.topics.refusals
  if (!topic) return svc
  const projection = new RefusalProjection({
    ...clients,
    database: cfg.clickhouse.database,
    topic,
    groupId: `${cfg.groupId}-refusals`,
    prune: cfg.clickhouse.cluster === undefined,
    log,
  })
  return {
    ...svc,
    start: async () => {
      const started = await svc.start()
      projection.start()
      return started
    },
    close: async () => {
      await projection.stop()
      return svc.close()
    },
  }
}
