// A35: the master keys that open wrapped data keys while the master is rotated: the current one
// (PRIVACY_MASTER_KEY, the only one that wraps) and those being rotated out (PRIVACY_OLD_MASTER_KEY). A
// wrapped key does not say which master wrapped it (the keys topic's format is A15's, unchanged), so each is
// tried, the one that opened the last key first: a topic's keys come in long runs of one master (those
// minted before the rotation, then those minted after or re-wrapped), so a key costs one open however many
// masters are given, and a failed try (a tag that does not match, A36) only where a run changes.
import { WrappedKeyOpener } from './wrapped-key-opener.js'

/** Why a wrapped key did not open: no master given wrapped it for that id, or its bytes changed. */
export class NoMasterOpensError extends Error {
  constructor() {
    super('no master key given opens this wrapped key (AES-GCM: unable to authenticate data)')
    this.name = 'NoMasterOpensError'
  }
}

/** Which master opened each key of openAll(): its index in `keys`, or NONE. */
export const NONE = -1

/** What openAll() gives for each value it was handed, by the value's index. */
export interface OpenedKeys {
  keys: (Buffer | undefined)[]
  openers: Int8Array
}

export class MasterKeyRing {
  /** The current master first, then the old ones in the order given. */
  readonly keys: readonly Buffer[]
  /** A36: one opener a master, each holding its AES context and GHASH tables. */
  private readonly openers: readonly WrappedKeyOpener[]
  private last = 0

  constructor(current: Buffer, old: readonly Buffer[] = []) {
    this.keys = [current, ...old]
    this.openers = this.keys.map((k) => new WrappedKeyOpener(k))
  }

  static of(c: { masterKey: Buffer; oldMasterKeys?: readonly Buffer[] }): MasterKeyRing {
    return new MasterKeyRing(c.masterKey, c.oldMasterKeys ?? [])
  }

  /** Which master opened the last key `open` returned: 0 the current one, 1 on the old ones. */
  get lastOpener(): number {
    return this.last
  }

  /** The data key `wrapped` holds; throws NoMasterOpensError when none of the masters opens it. */
  open(keyId: string, wrapped: Buffer): Buffer {
    const key = this.openAll([keyId], [wrapped]).keys[0]
    if (key === undefined) throw new NoMasterOpensError()
    return key
  }

  /** A36: open() of many keys, the masters' AES work done a batch at a time. keys[i] is the data key of
   *  wrapped[i] for ids[i] (undefined where no master opens it, or wrapped[i] is null: nothing to open),
   *  openers[i] the master that opened it (NONE where none did). Each master is tried on the keys the ones
   *  before it left, the last opener first. */
  openAll(ids: readonly string[], wrapped: readonly (Buffer | null)[]): OpenedKeys {
    const keys: (Buffer | undefined)[] = new Array(ids.length)
    const openers = new Int8Array(ids.length).fill(NONE)
    let leftIds = ids
    let leftWrapped = wrapped
    let leftAt: number[] | undefined
    const order = [this.last, ...this.keys.keys()].filter((m, i, all) => all.indexOf(m) === i)
    for (const m of order) {
      const out: (Buffer | undefined)[] = new Array(leftIds.length)
      this.openers[m]!.openAll(leftIds, leftWrapped, out)
      const next: { ids: string[]; wrapped: Buffer[]; at: number[] } = { ids: [], wrapped: [], at: [] }
      for (let j = 0; j < out.length; j++) {
        const i = leftAt === undefined ? j : leftAt[j]!
        if (out[j] !== undefined) {
          keys[i] = out[j]
          openers[i] = m
        } else if (leftWrapped[j] !== null) {
          next.ids.push(leftIds[j]!)
          next.wrapped.push(leftWrapped[j]!)
          next.at.push(i)
        }
      }
      if (next.ids.length === 0) break
      leftIds = next.ids
      leftWrapped = next.wrapped
      leftAt = next.at
    }
    for (let i = openers.length - 1; i >= 0; i--)
      if (openers[i] !== NONE) {
        this.last = openers[i]!
        break
      }
    return { keys, openers }
  }
}
