// Auth subsystem: Authorization header parsing (docs/api.md Authentication, H1), key hashing and
// generation, and the in-memory key table projected from the accounts topic (A1).

export {
  ALL_KEY_TYPES,
  KEY_BODY_MAX_LENGTH,
  KEY_BODY_MIN_LENGTH,
  LIVE_KEY_PREFIX,
  TEST_KEY_PREFIX,
  parseAuthorization,
  type ParsedAuthorization,
} from './parse-auth.js'
export {
  GENERATED_KEY_BODY_LENGTH,
  generateKey,
  hashKey,
  maskKey,
  type GeneratedKey,
} from '../../../shared/src/accounts/key-hash.js'
export { KeyTable, type KeyLookup, type KeyTableOptions } from '../../../shared/src/accounts/key-table.js'
