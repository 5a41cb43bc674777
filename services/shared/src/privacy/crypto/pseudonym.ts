// A12 stage 2: the record key keeps the account in clear (routing, per-account quotas) and replaces the
// user id with a keyed pseudonym, so per-user ordering and partitioning stay while the id does not show.
import { createHmac, randomBytes } from 'node:crypto'

/** Bytes of HMAC-SHA-256 kept: 16 bytes make collisions within one account negligible. */
export const PSEUDONYM_BYTES = 16
/** Per-account secrets are 32 random bytes (A12). */
export const ACCOUNT_SECRET_BYTES = 32

export function newAccountSecret(): Buffer {
  return randomBytes(ACCOUNT_SECRET_BYTES)
}

/** A15: the account secret ingest and the projector use, derived from the master key (nothing to store or
 *  to lose; it rotates with the master). The label keeps it apart from any other use of the master key. */
export function accountSecretOf(masterKey: Buffer, accountId: string): Buffer {
  return createHmac('sha256', masterKey).update('account-secret\u0000', 'utf8').update(accountId, 'utf8').digest()
}

/** HMAC-SHA-256(account secret, user id), truncated, as hex (it travels in string record keys). */
export function pseudonymOf(accountSecret: Buffer, userId: string): string {
  if (accountSecret.length !== ACCOUNT_SECRET_BYTES)
    throw new RangeError(`account secret must be ${ACCOUNT_SECRET_BYTES} bytes`)
  return createHmac('sha256', accountSecret)
    .update(userId, 'utf8')
    .digest()
    .subarray(0, PSEUDONYM_BYTES)
    .toString('hex')
}

/** The event topics' record key: `account_id NUL pseudonym`, the same shape as the clear key it replaces. */
export function pseudonymousRecordKey(accountId: string, pseudonym: string): string {
  return `${accountId}\u0000${pseudonym}`
}
