// A19: `npm run privacy -- reencrypt --from T --to T2`: copies an event topic into sealed form so that
// history written in clear can be erased too (A12 "Old records"). Each source partition is read in
// order, in chunks; a chunk's new data keys go to the keys topic (acks=all) before its records go to
// the destination (idempotent producer, acks=all), then the tool's consumer group commits the chunk's
// end: that commit is the resume point. A crash between a chunk's write and its commit leaves at most
// one chunk on the destination uncommitted; a rerun reads the destination's last chunk of records per
// partition and skips the source records they name (headers), so nothing is copied twice or lost.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Consumer, Kafka, KafkaMessage, Producer } from '../../services/shared/src/kafka/client.js'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { readRanges, type OffsetRange } from '../../services/shared/src/kafka/read-ranges.js'
import { ensureTopics } from '../../services/shared/src/kafka.js'
import type { CommonConfig } from '../../services/shared/src/env.js'
import type { Codec } from '../../schemas/codec.js'
import type { Logger } from '../../services/shared/src/log.js'
import { ErasureSet } from '../../services/shared/src/privacy/erasure-set.js'
import { Pseudonyms } from '../../services/shared/src/privacy/erasure-identity.js'
import { followErasures } from '../../services/shared/src/privacy/erasures-log.js'
import { HistorySealer, type WrappedKey } from './history-sealer.js'
import {
  SOURCE_OFFSET_HEADER,
  SOURCE_PARTITION_HEADER,
  actionFor,
  formatProgress,
  newProgress,
  planPartitions,
  sourceRef,
  tailStart,
  writtenRefs,
  type PartitionPlan,
  type Progress,
} from './reencrypt-plan.js'

export interface ReencryptOptions {
  from: string
  to: string
  /** Records per write (and the most a crash can leave uncommitted). */
  chunk: number
  /** Pause between chunks, to spare a busy cluster (0: none). */
  paceMs: number
  progressMs: number
}

export interface ReencryptDeps {
  kafka: Kafka
  codec: Codec
  cfg: CommonConfig
  masterKey: Buffer
  /** A35: the key pseudonyms are derived from. */
  pseudonymKey: Buffer
  log: Logger
  note: (line: string) => void
}

export interface ReencryptSummary {
  records: number
  sealed: number
  copied: number
  stubbed: number
  keys: number
  skipped: number
  durationMs: number
}

type Message = KafkaMessage

/** The tool's consumer group: one per (source, destination), so its committed offsets are the resume point. */
export const groupOf = (from: string, to: string) => `privacy-reencrypt.${from}.${to}`

export async function reencrypt(deps: ReencryptDeps, o: ReencryptOptions): Promise<ReencryptSummary> {
  const started = Date.now()
  const { plans, written } = await prepare(deps, o)
  // A22: pseudonymous erasures are matched by the pseudonym of each clear record's user id.
  const erasures = new ErasureSet(new Pseudonyms(deps.pseudonymKey))
  const follower = await followErasures(
    deps.kafka,
    deps.codec,
    deps.cfg.topics.erasures!,
    (e) => erasures.apply(e),
    deps.log,
    {
      groupPrefix: 'privacy-reencrypt-erasures',
    },
  )
  const producer = createProducer(deps.kafka, { idempotent: true, maxInFlightRequests: 5 })
  const run = new Run(deps, o, erasures, producer, written, newProgress(plans, started))
  const tick = setInterval(() => deps.note(formatProgress(run.progress, Date.now())), o.progressMs)
  try {
    await follower.ready
    await producer.connect()
    await run.consume(plans)
  } finally {
    clearInterval(tick)
    await producer.disconnect().catch(() => undefined)
    await follower.stop().catch(() => undefined)
  }
  deps.note(formatProgress(run.progress, Date.now()))
  return { ...run.counts, durationMs: Date.now() - started }
}

/** The destination made when missing (the event topics' settings, A3), the plan, and what a crashed
 *  run wrote after its last commit. */
async function prepare(deps: ReencryptDeps, o: ReencryptOptions) {
  const admin = deps.kafka.admin()
  await admin.connect()
  try {
    if (!(await admin.listTopics()).includes(o.from)) throw new Error(`no topic ${o.from}`)
    await ensureTopics(
      admin,
      { ...deps.cfg.topics, events: o.to },
      {
        partitions: deps.cfg.topicPartitions,
        replicationFactor: deps.cfg.topicReplication.factor,
        minInsyncReplicas: deps.cfg.topicReplication.minInsync,
        keys: deps.cfg.keysTopic,
      },
    )
    const ends = (await admin.fetchTopicOffsets(o.from)).map((p) => ({
      partition: p.partition,
      low: BigInt(p.low),
      high: BigInt(p.high),
    }))
    const [group] = await admin.fetchOffsets({ groupId: groupOf(o.from, o.to), topics: [o.from] })
    const committed = new Map(
      (group?.partitions ?? []).filter((p) => Number(p.offset) >= 0).map((p) => [p.partition, BigInt(p.offset)]),
    )
    const tails = (await admin.fetchTopicOffsets(o.to)).map((p) => ({
      partition: p.partition,
      start: tailStart(BigInt(p.low), BigInt(p.high), o.chunk),
      end: BigInt(p.high),
    }))
    return { plans: planPartitions(ends, committed), written: writtenRefs(await readHeaders(deps.kafka, o.to, tails)) }
  } finally {
    await admin.disconnect()
  }
}

/** The headers of the records in the given ranges of a topic. */
async function readHeaders(
  kafka: Kafka,
  topic: string,
  ranges: OffsetRange[],
): Promise<Array<Record<string, Buffer | string | undefined> | undefined>> {
  const out: Array<Record<string, Buffer | string | undefined> | undefined> = []
  await readRanges(kafka, topic, ranges, 'privacy-reencrypt-tail', (_, message) => {
    out.push(message.headers as Record<string, Buffer | undefined>)
  })
  return out
}

class Run {
  readonly counts = { records: 0, sealed: 0, copied: 0, stubbed: 0, keys: 0, skipped: 0 }
  private readonly sealer: HistorySealer

  constructor(
    private readonly deps: ReencryptDeps,
    private readonly o: ReencryptOptions,
    private readonly erasures: ErasureSet,
    private readonly producer: Producer,
    private readonly written: Set<string>,
    readonly progress: Progress,
  ) {
    this.sealer = new HistorySealer(deps.masterKey, undefined, deps.pseudonymKey)
  }

  /** Reads every planned partition up to its end with the tool's group, committing after each chunk. */
  async consume(plans: PartitionPlan[]): Promise<void> {
    if (plans.length === 0) return
    const ends = new Map(plans.map((p) => [p.partition, p]))
    const consumer = this.deps.kafka.consumer({ groupId: groupOf(this.o.from, this.o.to), maxWaitTimeInMs: 200 })
    await consumer.connect()
    try {
      await consumer.subscribe({ topic: this.o.from, fromBeginning: true })
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            autoCommit: false,
            partitionsConsumedConcurrently: 1,
            eachBatchAutoResolve: false,
            eachBatch: async ({ batch, heartbeat, isRunning }) => {
              const plan = ends.get(batch.partition)
              if (plan === undefined) return
              const todo = batch.messages.filter((m) => BigInt(m.offset) < plan.end)
              for (let i = 0; i < todo.length && isRunning(); i += this.o.chunk) {
                await this.chunk(consumer, batch.partition, todo.slice(i, i + this.o.chunk))
                await heartbeat()
                if (this.o.paceMs > 0) await sleep(this.o.paceMs)
              }
            },
          })
          .catch(reject)
        // Done by the fetch's last offset, not the last message's: a log that ends in transaction markers
        // has no message at its end, and kafkajs reports a fetch of only markers here alone.
        consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
          const plan = ends.get(e.payload.partition)
          if (plan === undefined || BigInt(e.payload.lastOffset) + 1n < plan.end) return
          ends.delete(e.payload.partition)
          if (ends.size === 0) resolve()
        })
        consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error))
      })
    } finally {
      await consumer.disconnect()
    }
  }

  /** One chunk: keys first, then the records, then the commit that makes them the resume point. */
  private async chunk(consumer: Consumer, partition: number, messages: Message[]): Promise<void> {
    const keys: WrappedKey[] = []
    const out: Array<{
      key: Buffer | string | null
      value: Buffer | null
      timestamp: string
      headers: Record<string, Buffer | string>
    }> = []
    for (const m of messages) {
      if (this.written.has(sourceRef(partition, m.offset))) {
        this.counts.skipped++
        continue
      }
      const { key, value } = await this.transform(m, keys)
      const headers = {
        ...(m.headers as Record<string, Buffer>),
        [SOURCE_PARTITION_HEADER]: String(partition),
        [SOURCE_OFFSET_HEADER]: m.offset,
      }
      out.push({ key, value, timestamp: m.timestamp, headers })
    }
    if (keys.length > 0)
      await this.producer.send({
        topic: this.deps.cfg.topics.keys!,
        acks: -1,
        messages: keys.map((k) => ({ key: k.id, value: k.wrapped })),
      })
    if (out.length > 0) await this.producer.send({ topic: this.o.to, acks: -1, messages: out })
    const next = (BigInt(messages.at(-1)!.offset) + 1n).toString()
    await consumer.commitOffsets([{ topic: this.o.from, partition, offset: next }])
    this.counts.keys += keys.length
    this.counts.records += messages.length
    const p = this.progress.partitions.get(partition)
    if (p) p.done += BigInt(messages.length)
  }

  /** A sealed record as it is; a clear one sealed, or as a stub when its person is erased (A19). */
  private async transform(
    m: Message,
    keys: WrappedKey[],
  ): Promise<{ key: Buffer | string | null; value: Buffer | null }> {
    if (m.value === null) {
      this.counts.copied++
      return { key: m.key, value: m.value }
    }
    const d = this.deps.codec.decodeKnown(m.value) ?? (await this.deps.codec.decode(m.value))
    if (d.name !== 'Event' && d.name !== 'Identify')
      throw new Error(`${this.o.from} offset ${m.offset}: a ${d.name} record is not an event topic's (Event, Identify)`)
    const v = d.value
    const action = actionFor(v.enc != null, this.erasures.covers(v.account_id, v.user_id, v.received_at))
    if (action === 'copy') {
      this.counts.copied++
      return { key: m.key, value: m.value }
    }
    const kind = d.name === 'Event' ? 'event' : 'identify'
    const s = action === 'seal' ? this.sealer.seal(kind, v, keys) : this.sealer.stub(kind, v)
    if (action === 'seal') this.counts.sealed++
    else this.counts.stubbed++
    return { key: s.key, value: this.deps.codec.encode(d.name, s.record) }
  }
}
