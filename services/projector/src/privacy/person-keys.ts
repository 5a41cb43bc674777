// The erasure worker's view of the keys topic (A15, A17): a person's data keys are every record whose
// key id starts with `account NUL pseudonym NUL` (one per month and generation). The worker reads the
// topic itself, from its start to the end it has when asked, instead of waiting for a holder of keys:
// an erasure is rare, and reading every key once per erasure costs one pass over a topic of wrapped keys.
import type { ErasureRecord } from '../../../../schemas/records.js'
import type { KeyEntry } from '../../../shared/src/privacy/keys-scan.js'
import { accountSecretOf, pseudonymOf } from '../../../shared/src/privacy/crypto/index.js'

/** The key-id prefix of every data key of one person (A13: `account NUL pseudonym NUL YYYY-MM NUL gen`). */
export function personKeyPrefix(masterKey: Buffer, accountId: string, userId: string): string {
  return `${accountId}\u0000${pseudonymOf(accountSecretOf(masterKey, accountId), userId)}\u0000`
}

/** The key-id prefix of an erasure's person: the pseudonym its record names (A22), or that of its user id.
 *  The erasure's own key (erasure-identity.ts) is under it too, and goes with the person's data keys. */
export function erasurePrefix(
  masterKey: Buffer,
  e: Pick<ErasureRecord, 'account_id' | 'user_id' | 'pseudonym'>,
): string {
  return e.pseudonym ? `${e.account_id}\u0000${e.pseudonym}\u0000` : personKeyPrefix(masterKey, e.account_id, e.user_id)
}

/** Which key ids a step covers: a prefix (one person's keys, A17) or a rule (a retention's months, A23). */
export type KeyMatch = string | ((id: string) => boolean)

const matcher = (m: KeyMatch) => (typeof m === 'string' ? (id: string) => id.startsWith(m) : m)

/** The ids matched whose latest record is a key, not a tombstone: what an erasure must tombstone. */
export function liveKeyIds(entries: readonly KeyEntry[], match: KeyMatch): string[] {
  const covers = matcher(match)
  const latest = new Map<string, boolean>()
  for (const e of entries) if (covers(e.id)) latest.set(e.id, e.tombstone)
  return [...latest].filter(([, tombstone]) => !tombstone).map(([id]) => id)
}

/**
 * Records matched written at or before `until` that a reader of the topic still gets, tombstones
 * included. None left means the cleaner has removed the keys and then their tombstones (a tombstone is
 * dropped only after the values it shadows, delete.retention.ms after its segment was cleaned).
 */
export function leftBefore(entries: readonly KeyEntry[], match: KeyMatch, until: number): number {
  const covers = matcher(match)
  return entries.filter((e) => e.at <= until && covers(e.id)).length
}
