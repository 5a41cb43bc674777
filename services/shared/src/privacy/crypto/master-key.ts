// A13: PRIVACY_MASTER_KEY wraps every data key. It is validated once at start, never logged (env.ts
// names but never prints a variable called KEY), and the dev default is refused with REQUIRE_SECRETS on,
// as the other credentials are (env.ts requireSecret). A35: the keys it replaces while it is rotated
// (PRIVACY_OLD_MASTER_KEY) and the key pseudonyms are derived from (PRIVACY_PSEUDONYM_KEY) are read here too.
import { ConfigError } from '../../env.js'
import { DATA_KEY_BYTES } from './data-key.js'

/** For tests and `npm start` only: public, so it protects nothing. */
export const DEV_MASTER_KEY = Buffer.alloc(DATA_KEY_BYTES, 0x5a).toString('base64')

const HEX = /^[0-9a-fA-F]{64}$/

/** 32 bytes as base64 (44 characters) or hex (64); `variable` names it in the error, never the value. */
function parseKey(variable: string, raw: string): Buffer {
  const key = HEX.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64')
  if (key.length !== DATA_KEY_BYTES || (!HEX.test(raw) && key.toString('base64') !== raw))
    throw new ConfigError(variable, 'must be 32 bytes, as base64 or 64 hex digits')
  return key
}

/** 32 bytes as base64 (44 characters) or hex (64); empty means the dev default. */
export function parseMasterKey(raw: string, requireSecrets: boolean): Buffer {
  if (!raw) {
    if (requireSecrets) throw new ConfigError('PRIVACY_MASTER_KEY', 'is required when REQUIRE_SECRETS is on')
    return Buffer.from(DEV_MASTER_KEY, 'base64')
  }
  const key = parseKey('PRIVACY_MASTER_KEY', raw)
  if (requireSecrets && key.equals(Buffer.from(DEV_MASTER_KEY, 'base64')))
    throw new ConfigError('PRIVACY_MASTER_KEY', 'must not be the development default when REQUIRE_SECRETS is on')
  return key
}

/** A35: the master keys being rotated out, comma-separated: they open data keys, they wrap none. The
 *  development key may be one of them (rotating away from it is the point). */
export function parseOldMasterKeys(raw: string, current: Buffer): Buffer[] {
  if (!raw.trim()) return []
  const keys = raw.split(',').map((part) => parseKey('PRIVACY_OLD_MASTER_KEY', part.trim()))
  if (keys.some((k) => k.equals(current)))
    throw new ConfigError('PRIVACY_OLD_MASTER_KEY', 'must not hold PRIVACY_MASTER_KEY (the current key is always used)')
  return keys
}

/**
 * A35: the key every account secret, hence every pseudonym, is derived from. It defaults to the master key,
 * as before A35; a rotation of the master must not change it (a person would get a second pseudonym, and an
 * erasure would find only the keys under the new one), so it is required while old master keys are given.
 */
export function parsePseudonymKey(raw: string, master: Buffer, oldMasters: readonly Buffer[], requireSecrets: boolean) {
  if (!raw) {
    if (oldMasters.length > 0)
      throw new ConfigError(
        'PRIVACY_PSEUDONYM_KEY',
        'is required while PRIVACY_OLD_MASTER_KEY is set: give it the master key the pseudonyms were made with (docs/privacy.md, "Rotating the master key")',
      )
    return master
  }
  const key = parseKey('PRIVACY_PSEUDONYM_KEY', raw)
  if (requireSecrets && key.equals(Buffer.from(DEV_MASTER_KEY, 'base64')))
    throw new ConfigError('PRIVACY_PSEUDONYM_KEY', 'must not be the development default when REQUIRE_SECRETS is on')
  return key
}
