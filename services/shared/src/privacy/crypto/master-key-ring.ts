// A35: the master keys that open wrapped data keys while the master is rotated: the current one
// (PRIVACY_MASTER_KEY, the only one that wraps) and those being rotated out (PRIVACY_OLD_MASTER_KEY). A
// wrapped key does not say which master wrapped it (the keys topic's format is A15's, unchanged), so each is
// tried, the one that opened the last key first: a topic's keys come in long runs of one master (those
// minted before the rotation, then those minted after or re-wrapped), so a key costs one AES-GCM open
// however many masters are given, and a failed try (a thrown error) only where a run changes.
import { unwrapDataKey } from './data-key.js'

export class MasterKeyRing {
  /** The current master first, then the old ones in the order given. */
  readonly keys: readonly Buffer[]
  private last = 0

  constructor(current: Buffer, old: readonly Buffer[] = []) {
    this.keys = [current, ...old]
  }

  static of(c: { masterKey: Buffer; oldMasterKeys?: readonly Buffer[] }): MasterKeyRing {
    return new MasterKeyRing(c.masterKey, c.oldMasterKeys ?? [])
  }

  /** Which master opened the last key `open` returned: 0 the current one, 1 on the old ones. */
  get lastOpener(): number {
    return this.last
  }

  /** The data key `wrapped` holds; throws the last master's failure when none of them opens it. */
  open(keyId: string, wrapped: Buffer): Buffer {
    const first = this.last
    try {
      return unwrapDataKey(this.keys[first]!, keyId, wrapped)
    } catch (err) {
      if (this.keys.length === 1) throw err
      for (let i = 0; i < this.keys.length; i++) {
        if (i === first) continue
        try {
          const key = unwrapDataKey(this.keys[i]!, keyId, wrapped)
          this.last = i
          return key
        } catch {
          // the next master, or the first failure thrown below
        }
      }
      throw err
    }
  }
}
