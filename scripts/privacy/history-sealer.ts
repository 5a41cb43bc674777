// A19: how `reencrypt` seals a clear record of the history, as ingest would (A15): the person's
// pseudonym as the record key and `user_id`, the personal fields in `enc` under a random data key of the
// person and received month, whose wrapped copy the caller stores on the keys topic before the record.
// Only the public functions of the crypto core are called (services/shared/src/privacy/crypto/index.ts),
// so a change of the cipher format there flows into the tool. No I/O here: the caller writes.
import { randomBytes } from 'node:crypto'
import * as crypto from '../../services/shared/src/privacy/crypto/index.js'

type Rec = Record<string, unknown> & { account_id: string; user_id: string; received_at: number }

export interface WrappedKey {
  /** The keys topic's record key: `account NUL pseudonym NUL YYYY-MM NUL generation` (A15). */
  id: string
  wrapped: Buffer
}

export interface SealedOut {
  /** The record's Kafka key: account NUL pseudonym. */
  key: string
  record: Record<string, unknown>
}

export class HistorySealer {
  private readonly secrets = new Map<string, Buffer>()
  private readonly keys = new Map<string, crypto.StreamKey>()

  /** `maxKeys`: data keys held at once; past it they are forgotten and a person met again gets one more. */
  constructor(
    private readonly masterKey: Buffer,
    private readonly maxKeys = 100_000,
    /** A35: the key pseudonyms are derived from; the master key unless it was rotated. */
    private readonly pseudonymKey = masterKey,
  ) {}

  /** The record sealed for its person; a new key is pushed to `minted` (store it before the record). */
  seal(kind: crypto.RecordKind, record: Rec, minted: WrappedKey[]): SealedOut {
    const pseudonym = crypto.pseudonymOf(this.secretOf(record.account_id), record.user_id)
    const month = crypto.keyMonth(record.received_at)
    const slot = crypto.dataKeyId(record.account_id, pseudonym, month)
    let key = this.keys.get(slot)
    if (key === undefined) {
      if (this.keys.size >= this.maxKeys) this.keys.clear()
      const { id, bytes, wrapped } = crypto.mintDataKey(this.masterKey, record.account_id, pseudonym, month)
      key = { id, stream: new crypto.KeyStream(bytes) }
      minted.push({ id, wrapped })
      this.keys.set(slot, key)
    }
    return {
      key: crypto.pseudonymousRecordKey(record.account_id, pseudonym),
      record: crypto.sealPersonalFields(kind, record, key, pseudonym),
    }
  }

  /**
   * A12, A19: an erased person's record as a usage stub: sealed under a random pseudonym with a key that
   * is never stored, so it opens for nobody (a reader projects its usage only) and links to nobody.
   */
  stub(kind: crypto.RecordKind, record: Rec): SealedOut {
    const pseudonym = randomBytes(crypto.PSEUDONYM_BYTES).toString('hex')
    const id = crypto.newKeyId(record.account_id, pseudonym, crypto.keyMonth(record.received_at))
    const key = { id, stream: new crypto.KeyStream(crypto.newDataKey()) }
    return {
      key: crypto.pseudonymousRecordKey(record.account_id, pseudonym),
      record: crypto.sealPersonalFields(kind, record, key, pseudonym),
    }
  }

  private secretOf(accountId: string): Buffer {
    let s = this.secrets.get(accountId)
    if (s === undefined) this.secrets.set(accountId, (s = crypto.accountSecretOf(this.pseudonymKey, accountId)))
    return s
  }
}
