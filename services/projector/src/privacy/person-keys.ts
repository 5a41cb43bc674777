// The erasure worker's view of the keys topic (A15, A17): a person's data keys are every record whose
// key id starts with `account NUL pseudonym NUL` (one per month and generation). The worker reads the
// topic itself, from its start to the end it has when asked, instead of waiting for a holder of keys:
// erasures are rare, and reading every key once per batch of them (A31) costs one pass over a topic of
// wrapped keys.
import type { ErasureRecord } from '../../../../schemas/records.js'
import { accountSecretOf, pseudonymOf } from '../../../shared/src/privacy/crypto/index.js'

/** The key-id prefix of every data key of one person (A13: `account NUL pseudonym NUL YYYY-MM NUL gen`). */
export function personKeyPrefix(pseudonymKey: Buffer, accountId: string, userId: string): string {
  return `${accountId}\u0000${pseudonymOf(accountSecretOf(pseudonymKey, accountId), userId)}\u0000`
}

/** The key-id prefix of an erasure's person: the pseudonym its record names (A22), or that of its user id.
 *  The erasure's own key (erasure-identity.ts) is under it too, and goes with the person's data keys. */
export function erasurePrefix(
  pseudonymKey: Buffer,
  e: Pick<ErasureRecord, 'account_id' | 'user_id' | 'pseudonym'>,
): string {
  return e.pseudonym
    ? `${e.account_id}\u0000${e.pseudonym}\u0000`
    : personKeyPrefix(pseudonymKey, e.account_id, e.user_id)
}

/** The person part of a key id (`account NUL pseudonym NUL`, as erasurePrefix gives it), '' for an id
 *  without one: a batch of erasures finds its people's keys by this, one Set lookup a key (A31). */
export function personPartOf(keyId: string): string {
  const end = keyId.indexOf('\u0000', keyId.indexOf('\u0000') + 1)
  return end < 0 ? '' : keyId.slice(0, end + 1)
}
