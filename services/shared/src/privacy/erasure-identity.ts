// A22: how the erasures topic names a person without their user id in clear. With sealing on, a record
// is keyed and matched by the person's pseudonym (the HMAC sealed event records are keyed by, A15), and the
// user id, which the purge of ClickHouse needs, is sealed under a key of its own stored on the keys topic
// under the person's key prefix (`account NUL pseudonym NUL erasure NUL <erasure id>`): the erasure's
// tombstones (A17) forget it with the person's data keys, and its receipt's last step watches it go from
// disk. With sealing off a record holds the user id in clear, as before (the history holds it in clear).
import { erasureKey, type ErasureRecord } from '../../../../schemas/records.js'
import { accountSecretOf, open, pseudonymOf, seal } from './crypto/index.js'

/** The keys topic id of an erasure's own key: under the person's prefix, with no month (A23 never takes it). */
export function erasureIdKeyId(accountId: string, pseudonym: string, erasureId: string): string {
  return `${accountId}\u0000${pseudonym}\u0000erasure\u0000${erasureId}`
}

/** The user id sealed under the erasure's key; the erasure id is the AAD (it cannot be moved to another). */
export function sealUserId(key: Buffer, userId: string, erasureId: string): Buffer {
  return seal(key, Buffer.from(userId, 'utf8'), Buffer.from(erasureId, 'utf8'))
}

export function openUserId(key: Buffer, sealed: Buffer, erasureId: string): string {
  return open(key, sealed, Buffer.from(erasureId, 'utf8')).toString('utf8')
}

/** The erasures topic's record key of a record: the person's pseudonymous key, or in clear (today's format). */
export function erasureRecordKey(e: Pick<ErasureRecord, 'account_id' | 'user_id' | 'pseudonym'>): string {
  return e.pseudonym ? erasureKey(e.account_id, e.pseudonym) : erasureKey(e.account_id, e.user_id)
}

/** Pseudonyms of user ids (A15), the account secrets derived once per account. */
export class Pseudonyms {
  private readonly secrets = new Map<string, Buffer>()

  constructor(private readonly masterKey: Buffer) {}

  of(accountId: string, userId: string): string {
    let secret = this.secrets.get(accountId)
    if (secret === undefined) this.secrets.set(accountId, (secret = accountSecretOf(this.masterKey, accountId)))
    return pseudonymOf(secret, userId)
  }
}

/** The user id of a pseudonymous erasure, opened with its key; undefined once the key is forgotten. */
export function erasureUserId(
  e: Pick<ErasureRecord, 'account_id' | 'erasure_id' | 'pseudonym' | 'sealed_user_id'>,
  keyFor: (id: string) => Buffer | undefined,
): string | undefined {
  if (!e.pseudonym || !e.sealed_user_id) return undefined
  const key = keyFor(erasureIdKeyId(e.account_id, e.pseudonym, e.erasure_id))
  return key && openUserId(key, e.sealed_user_id, e.erasure_id)
}
