// A16: where a sealed record (A15: personal fields in `enc`) becomes the record ingest received, at the
// decode step the live projector and the replay share (A14). A record without `enc` (written before
// A15, or with PRIVACY_ENCRYPT off) passes unchanged. A key the holder has not read is waited for once a
// batch: every key is on the keys topic before the first record sealed with it (A15), so once the holder
// has read to the topic's end as of a moment after the batch was fetched, a key still missing is gone.
import type { Decoded } from '../../../../schemas/codec.js'
import {
  decryptRecord,
  isStreamKeyId,
  openStream,
  type RecordKind,
  type Sealed,
} from '../../../shared/src/privacy/crypto/index.js'
import type { StreamBodies } from '../clickhouse/event-transcoder.js'
import type { KeySource } from './keys-holder.js'
import type { UsageStub } from './usage-stubs.js'

/** What the decode step does with a record whose key is gone: its event, if any, still counts (A12). */
export interface GoneRecord {
  kind: 'gone'
  stub: UsageStub | undefined
}

const KINDS: Record<string, RecordKind> = { Event: 'event', Identify: 'identify' }

export class RecordOpener implements StreamBodies {
  private synced: Promise<void> | undefined

  constructor(private readonly keys: KeySource) {}

  /** A new batch of records was fetched: a miss in it waits for the keys topic's end as of now. */
  batchFetched(): void {
    this.synced = undefined
  }

  /** The record opened, or gone (its key was erased or expired); throws if its body does not open. */
  open(d: Decoded): Decoded | GoneRecord | Promise<Decoded | GoneRecord> {
    const kind = KINDS[d.name]
    if (kind === undefined || !(d.value as { enc?: Sealed | null }).enc) return d
    const opened = this.tryOpen(kind, d)
    if (opened !== undefined) return opened
    this.synced ??= this.keys.caughtUp()
    return this.synced.then(() => this.tryOpen(kind, d) ?? gone(d))
  }

  /** A21: the event transcoder's way in: a stream-format body opened with a held key, else undefined (the
   *  general path then opens the record through open(), waiting for or stubbing a missing key). */
  streamBody(keyId: string, record: Buffer, start: number, end: number): Buffer | undefined {
    if (!isStreamKeyId(keyId)) return undefined
    const key = this.keys.keyFor(keyId)
    return key === undefined ? undefined : openStream(key, record, start, end)
  }

  private tryOpen(kind: RecordKind, d: Decoded): Decoded | undefined {
    const value = decryptRecord(kind, d.value, (id) => this.keys.keyFor(id))
    return value === undefined ? undefined : { ...d, value }
  }
}

function gone(d: Decoded): GoneRecord {
  if (d.name !== 'Event') return { kind: 'gone', stub: undefined }
  const r = d.value as { account_id: string; environment: string; event_id: string; received_at: number | Date }
  return {
    kind: 'gone',
    stub: {
      account_id: r.account_id,
      environment: r.environment === 'test' ? 'test' : 'live',
      event_id: r.event_id,
      received_at: Number(r.received_at),
    },
  }
}
