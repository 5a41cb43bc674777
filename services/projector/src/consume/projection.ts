// Step 3 of the projector's walk (docs/design.md, "Projector: one record, file by file"): Kafka
// records are decoded and their rows built, shared by the live projector and the replay. Records that
// cannot be decoded or mapped to rows become dead letters with the reason and the record's place in
// the log (A3, A5), sent by the loop's next step (dead-letters.ts). The pipeline also builds the
// later steps from the same options: its dead letters and its writer (projection-writer.ts).
import type { KafkaMessage, Producer } from '../../../shared/src/kafka/client.js'
import { RegistryUnavailableError, SchemaMissingError, type Codec, type Decoded } from '../../../../schemas/codec.js'
import type { DeadLetterRecord, EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import { waitFor, WaitAbortedError, type Readiness } from '../../../shared/src/wait-for.js'
import type { Timers } from '../../../shared/src/timers.js'
import {
  newArenas,
  prepareEvent,
  prepareIdentify,
  unbuilt,
  type PreparedRecord,
  type RecordOrigin,
} from '../clickhouse/prepared.js'
import { EventTranscoder } from '../clickhouse/event-transcoder.js'
import { RowMappingError } from '../clickhouse/rows.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import { recordRows } from './record-rows.js'
import { withRetry } from './retry.js'
import { DeadLetters, deadLetter } from './dead-letters.js'
import { ProjectionWriter, type ProjectionSink, type WriteOutcome } from './projection-writer.js'
import { CodedError } from '../../../shared/src/errors.js'
import { erases, type ErasureSet } from '../../../shared/src/privacy/erasure-set.js'
import type { ErasureRecord } from '../../../../schemas/records.js'
import type { UsageStub } from '../privacy/usage-stubs.js'
import type { GoneRecord, RecordOpener } from '../privacy/record-opener.js'
import { KeyUnwrapError } from '../privacy/keys-holder.js'

export type { RecordOrigin } from '../clickhouse/prepared.js'
export type { ProjectionSink, WriteOutcome }

export interface PipelineMetrics {
  dlq(n: number): void
  /** A decode found the registry without a schema id a record carries (H41); counted per attempt. */
  schemaMissing?(): void
  inserted(events: number, identifies: number, seconds: number): void
}

/**
 * When a record's rows are built, chosen by the caller (H69): as it is decoded (cheapest when the
 * records are then written: the live projector, a replay into tables that held no ids), or after the
 * H16 lookup, for the records it keeps (cheapest when it drops most: a replay over rows already stored).
 */
export type RowBuilding = 'at-decode' | 'after-lookup'

export interface PipelineOptions {
  dlqTopic: string
  rows: RowBuilding
  retries: number
  /** Backoff of ClickHouse retries; tests pass small values. */
  initialRetryMs?: number
  maxRetryMs?: number
  /** The timers every backoff and wait of the pipeline sleeps on; tests pass manual ones. Default: Node's. */
  timers?: Timers
  /** Told when the registry or ClickHouse stops or starts answering (the projector's /health). */
  readiness?: Readiness
  /** Past the retries, keep waiting while ClickHouse is unreachable (until stopping) instead of
   * throwing: the live projector has nothing better to do, and giving up would only re-read the batch. */
  waitForClickHouse?: boolean
  /** Keep each decoded record beside its rows (the live feed shows them); a replay does not. */
  keepRecords?: boolean
  /** A12: records of erased people are never projected; their events still count (usage stubs). */
  erasures?: ErasureFilter
  /** H60: a replay skips records older than their account's retention; their events still count. */
  retention?: RetentionFilter
  /** A16: opens sealed records with the keys holder's keys; one whose key is gone leaves a usage stub. */
  sealed?: SealedRecords
}

export interface SealedRecords {
  opener: RecordOpener
  /** As ErasureFilter's: billing keeps the events whose key is gone. */
  keepUsage(stubs: UsageStub[]): Promise<void>
}

export interface RetentionFilter {
  /** The first event time (Unix ms) the account keeps, or undefined when it keeps everything. */
  cutoffOf(accountId: string): number | undefined
  /** As ErasureFilter's: billing keeps the events not projected. */
  keepUsage(stubs: UsageStub[]): Promise<void>
}

export interface ErasureFilter {
  set: ErasureSet
  /** Adds the event ids of events not projected to usage_monthly_sharded (usage-stubs.ts). */
  keepUsage(stubs: UsageStub[]): Promise<void>
}

type DecodedRecord =
  | { kind: 'event'; p: PreparedRecord<EventRecord> }
  | { kind: 'identify'; p: PreparedRecord<IdentifyRecord> }
  | GoneRecord

/** The clear fields of an event or identify a filter reads. */
interface WithheldFields {
  account_id?: unknown
  user_id?: unknown
  received_at?: unknown
  timestamp?: unknown
  environment?: unknown
  event_id?: unknown
}

const erasedBy = (e: ErasureRecord) => (r: WithheldFields) =>
  r.account_id === e.account_id && r.user_id === e.user_id && erases(e, Number(r.received_at))

/** The account of an event topic's record key (userKey: account, NUL, user id). */
function accountOfKey(key: Buffer | null): string {
  if (key === null) return ''
  const end = key.indexOf(0)
  return key.toString('utf8', 0, end < 0 ? key.length : end)
}

export class ProjectionPipeline {
  // Where decoded records' rows are written (prepared.ts); chunks live as long as their rows are referenced.
  private readonly arenas = newArenas()
  private readonly transcoder = new EventTranscoder()
  /** Step 4: sends the records that can never be written. */
  readonly deadLetters: DeadLetters
  /** Step 6: writes an insert's worth of rows (the batcher's flush). */
  readonly writer: ProjectionWriter

  constructor(
    producer: Producer,
    private readonly codec: Codec,
    sink: ProjectionSink,
    private readonly opts: PipelineOptions,
    private readonly metrics: PipelineMetrics | undefined,
    private readonly log: Logger,
    /** Set when the owner is stopping: retries give up instead of waiting. */
    readonly stopping: { aborted: boolean } = { aborted: false },
  ) {
    this.deadLetters = new DeadLetters(producer, codec, opts, metrics, log, stopping)
    this.writer = new ProjectionWriter(sink, this.deadLetters, opts, metrics, log, stopping)
  }

  /**
   * Decodes one partition's messages and builds their rows (see RowBuilding); records that do not
   * decode or cannot be mapped to rows become dead letters (not yet sent). A registry that does not answer says
   * nothing about the record: that is waited out, never dead-lettered; when the owner stops
   * meanwhile, RegistryUnavailableError is thrown and the caller must not resolve the offsets.
   * Stops after the record that brings the rows built to maxRows (H40): `taken` messages were
   * handled, and the caller decodes the rest once its buffer has room.
   */
  async decode(
    topic: string,
    partition: number,
    messages: KafkaMessage[],
    maxRows = Infinity,
  ): Promise<{ part: PreparedBatch; dead: DeadLetterRecord[]; taken: number }> {
    const part: PreparedBatch = { events: [], identifies: [] }
    const dead: DeadLetterRecord[] = []
    const keep = this.opts.keepRecords === true
    const erasures = this.opts.erasures
    const stubs: UsageStub[] = []
    let rows = 0
    let taken = 0
    this.opts.sealed?.opener.batchFetched()
    for (const m of messages) {
      if (rows >= maxRows) break
      taken++
      const origin: RecordOrigin = { topic, partition, offset: m.offset, key: m.key ?? null, value: m.value ?? null }
      // A12: matched by the record key (the person's, A3) before anything is decoded.
      const erasure = erasures?.set.forKey(origin.key)
      if (erasure !== undefined && m.value && (await this.withheld(m.value, stubs, erasedBy(erasure)))) continue
      // H60: the account is the key's first part (A3); only accounts with a retention are decoded here.
      const cutoff = this.opts.retention?.cutoffOf(accountOfKey(origin.key))
      if (cutoff !== undefined && m.value && (await this.withheld(m.value, stubs, (r) => Number(r.timestamp) < cutoff)))
        continue
      try {
        // Awaited only when the registry is asked: a promise per record costs the replay's rate.
        const pending = this.decodeRecord(topic, m.value, origin, keep)
        const decoded = pending instanceof Promise ? await pending : pending
        if (decoded.kind === 'gone') {
          if (decoded.stub) stubs.push(decoded.stub)
          continue
        }
        if (decoded.kind === 'event') part.events.push(decoded.p)
        else part.identifies.push(decoded.p)
        rows += recordRows(decoded.p)
      } catch (err) {
        // Stopping while the registry is away: the record is neither decoded nor bad; leave it unresolved.
        if (err instanceof RegistryUnavailableError || err instanceof WaitAbortedError) throw err
        // A wrong master key: the record is fine, the projector is not; never dead-letter for it.
        if (err instanceof KeyUnwrapError) throw err
        const d = deadLetter(origin, err)
        // A record that decodes but cannot be stored (a time ClickHouse cannot hold...): name it.
        if (err instanceof RowMappingError) d.reason = `${err.eventId}: ${d.reason}`
        dead.push(d)
      }
    }
    if (stubs.length > 0)
      await withRetry(() => (erasures ?? this.opts.retention ?? this.opts.sealed)!.keepUsage(stubs), {
        retries: this.opts.retries,
        initialMs: 200,
        maxMs: 5000,
        signal: this.stopping,
        timers: this.opts.timers,
      })
    return { part, dead, taken }
  }

  /**
   * The one step where a record's bytes become a value and its rows (built now or later, RowBuilding).
   * An event written with our own Event schema whose record is not kept goes from bytes to rows
   * directly (event-transcoder.ts); anything else is decoded through the registry (codec.ts).
   */
  private decodeRecord(
    topic: string,
    value: Buffer | null | undefined,
    origin: RecordOrigin,
    keep: boolean,
  ): DecodedRecord | Promise<DecodedRecord> {
    if (!value) throw new CodedError('EMPTY_VALUE', 'record has no value', { retriable: false })
    if (this.opts.rows === 'at-decode' && !keep && this.codec.readerLayout(value) === 'Event') {
      const p = this.transcoder.transcode(value, this.arenas, origin, this.opts.sealed?.opener)
      // null: a layout the transcoder does not take; the general path below does.
      if (p !== null) return { kind: 'event', p }
    }
    const d = this.codec.decodeKnown(value)
    if (d) return this.openThenPrepare(topic, d, origin, keep)
    return this.decodeWaiting(value).then((w) => this.openThenPrepare(topic, w, origin, keep))
  }

  /** A16: the one hook where a sealed record is opened (record-opener.ts) before its rows are built. */
  private openThenPrepare(
    topic: string,
    d: Decoded,
    origin: RecordOrigin,
    keep: boolean,
  ): DecodedRecord | Promise<DecodedRecord> {
    const opener = this.opts.sealed?.opener
    if (opener === undefined) return this.prepare(topic, d, origin, keep)
    const opened = opener.open(d)
    const then = (o: Decoded | GoneRecord) => ('kind' in o ? o : this.prepare(topic, o, origin, keep))
    return opened instanceof Promise ? opened.then(then) : then(opened)
  }

  private prepare(topic: string, d: Decoded, origin: RecordOrigin, keep: boolean): DecodedRecord {
    const atDecode = this.opts.rows === 'at-decode'
    if (d.name === 'Event')
      return {
        kind: 'event',
        p: atDecode ? prepareEvent(d.value, this.arenas, origin, keep) : unbuilt(d.value, origin),
      }
    if (d.name === 'Identify')
      return {
        kind: 'identify',
        p: atDecode ? prepareIdentify(d.value, this.arenas, origin, keep) : unbuilt(d.value, origin),
      }
    throw new CodedError('UNEXPECTED_TYPE', `unexpected record type ${d.name} on ${topic}`, { retriable: false })
  }

  /** Whether `covers` withholds this event or identify (an erasure, A12, or a retention, H60; then an
   * event leaves a usage stub); a record that does not decode is left to the general path, which
   * dead-letters it. */
  private async withheld(value: Buffer, stubs: UsageStub[], covers: (r: WithheldFields) => boolean): Promise<boolean> {
    let d: Decoded
    try {
      d = this.codec.decodeKnown(value) ?? (await this.decodeWaiting(value))
    } catch (err) {
      if (err instanceof RegistryUnavailableError || err instanceof WaitAbortedError) throw err
      return false
    }
    const r = d.value as WithheldFields
    if ((d.name !== 'Event' && d.name !== 'Identify') || !covers(r)) return false
    if (d.name === 'Event')
      stubs.push({
        account_id: String(r.account_id),
        environment: r.environment === 'test' ? 'test' : 'live',
        event_id: String(r.event_id),
        received_at: Number(r.received_at),
      })
    return true
  }

  private decodeWaiting(value: Buffer): Promise<Decoded> {
    return waitFor('registry', () => this.codec.decode(value), this.log, {
      initialMs: this.opts.initialRetryMs ?? 200,
      maxMs: this.opts.maxRetryMs ?? 5_000,
      readiness: this.opts.readiness,
      retryIf: (err) => {
        if (!(err instanceof RegistryUnavailableError) || this.stopping.aborted) return false
        if (err instanceof SchemaMissingError) this.schemaMissing(err)
        return true
      },
      signal: this.stopping instanceof AbortSignal ? this.stopping : undefined,
      timers: this.opts.timers,
    })
  }

  /** H41: the record is fine, the registry lost its schema. The partition waits here, its offset
   * uncommitted, until the registry has the id again; an operator must restore it. */
  private schemaMissing(err: SchemaMissingError) {
    this.metrics?.schemaMissing?.()
    this.log.error('the schema registry lost a schema the topics use; this partition waits until it is restored', {
      schemaId: err.missingId,
      err,
    })
  }
}
