// A13: PRIVACY_MASTER_KEY wraps every data key. It is validated once at start, never logged (env.ts
// names but never prints a variable called KEY), and the dev default is refused with REQUIRE_SECRETS on,
// as the other credentials are (env.ts requireSecret).
import { ConfigError } from '../../env.js'
import { DATA_KEY_BYTES } from './data-key.js'

/** For tests and `npm start` only: public, so it protects nothing. */
export const DEV_MASTER_KEY = Buffer.alloc(DATA_KEY_BYTES, 0x5a).toString('base64')

/** 32 bytes as base64 (44 characters) or hex (64); empty means the dev default. */
export function parseMasterKey(raw: string, requireSecrets: boolean): Buffer {
  if (!raw) {
    if (requireSecrets) throw new ConfigError('PRIVACY_MASTER_KEY', 'is required when REQUIRE_SECRETS is on')
    return Buffer.from(DEV_MASTER_KEY, 'base64')
  }
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64')
  if (key.length !== DATA_KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(raw) && key.toString('base64') !== raw))
    throw new ConfigError('PRIVACY_MASTER_KEY', 'must be 32 bytes, as base64 or 64 hex digits')
  if (requireSecrets && raw === DEV_MASTER_KEY)
    throw new ConfigError('PRIVACY_MASTER_KEY', 'must not be the development default when REQUIRE_SECRETS is on')
  return key
}
