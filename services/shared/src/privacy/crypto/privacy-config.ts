// A15: the crypto-shredding settings ingest and the projector read, one source for both config.ts files.
// PRIVACY_MASTER_KEY is parsed here once (master-key.ts) and kept as bytes; it is never logged.
import { v } from '../../env.js'
import { DEV_MASTER_KEY, parseMasterKey, parseOldMasterKeys, parsePseudonymKey } from './master-key.js'

export const privacySpec = {
  /** 32 bytes, base64 or hex: wraps every data key and derives the account secrets (A13, A15). */
  PRIVACY_MASTER_KEY: v.optionalStr(),
  /** A35: master keys being rotated out, comma-separated: they open data keys wrapped before the rotation. */
  PRIVACY_OLD_MASTER_KEY: v.optionalStr(),
  /** A35: the key pseudonyms are derived from; the master key when not set, required while rotating. */
  PRIVACY_PSEUDONYM_KEY: v.optionalStr(),
  /** A15: ingest seals personal fields and pseudonymises record keys; on by default (A29), so an erasure
   *  reaches the Kafka history. Off keeps records in clear (the format before A15). */
  PRIVACY_ENCRYPT: v.bool(true),
  /** A15, A20: people ingest holds (pseudonym and data key); a miss mints a new key, never a wrong one. */
  PRIVACY_KEY_CACHE_ENTRIES: v.int(100_000, 1, 100_000_000),
}

export interface PrivacyConfig {
  /** Wraps every data key minted (A13). */
  masterKey: Buffer
  /** A35: open data keys too, wrap none; empty but while the master is rotated. */
  oldMasterKeys: Buffer[]
  /** A35: account secrets, hence pseudonyms, are derived from it (A15). */
  pseudonymKey: Buffer
  encrypt: boolean
  keyCacheEntries: number
}

interface PrivacyEnv {
  PRIVACY_MASTER_KEY: string
  PRIVACY_OLD_MASTER_KEY: string
  PRIVACY_PSEUDONYM_KEY: string
  PRIVACY_ENCRYPT: boolean
  PRIVACY_KEY_CACHE_ENTRIES: number
  REQUIRE_SECRETS?: boolean
}

export function privacyConfig(e: PrivacyEnv): PrivacyConfig {
  const requireSecrets = e.REQUIRE_SECRETS === true
  const masterKey = parseMasterKey(e.PRIVACY_MASTER_KEY, requireSecrets)
  const oldMasterKeys = parseOldMasterKeys(e.PRIVACY_OLD_MASTER_KEY, masterKey)
  return {
    masterKey,
    oldMasterKeys,
    pseudonymKey: parsePseudonymKey(e.PRIVACY_PSEUDONYM_KEY, masterKey, oldMasterKeys, requireSecrets),
    encrypt: e.PRIVACY_ENCRYPT,
    keyCacheEntries: e.PRIVACY_KEY_CACHE_ENTRIES,
  }
}

/** A29: sealing is on by default, and without PRIVACY_MASTER_KEY it seals with the public development key,
 *  which any reader of this repository can open. Ingest says so at start (REQUIRE_SECRETS refuses it). */
export function masterKeyWarning(c: PrivacyConfig): string | undefined {
  return c.encrypt && c.masterKey.equals(Buffer.from(DEV_MASTER_KEY, 'base64'))
    ? 'PRIVACY_MASTER_KEY is not set: personal fields are sealed with the public development key, which protects nothing; set it, and REQUIRE_SECRETS=true, in production (docs/privacy.md)'
    : undefined
}
