// A12 stage 2 and A13: crypto-shredding of the event topics' personal fields.
export {
  pseudonymOf,
  pseudonymousRecordKey,
  newAccountSecret,
  accountSecretOf,
  PSEUDONYM_BYTES,
  ACCOUNT_SECRET_BYTES,
} from './pseudonym.js'
export {
  newDataKey,
  keyMonth,
  dataKeyId,
  newKeyId,
  mintDataKey,
  seal,
  open,
  wrapDataKey,
  unwrapDataKey,
} from './data-key.js'
export { KeyStream, openStream, forgetStream, isStreamKeyId, STREAM_GENERATION_MARK } from './key-stream.js'
export { parseMasterKey, DEV_MASTER_KEY } from './master-key.js'
export { MasterKeyRing, NoMasterOpensError, NONE, type OpenedKeys } from './master-key-ring.js'
export {
  encryptPersonalFields,
  sealPersonalFields,
  sealPersonalFieldsRun,
  decryptRecord,
  PERSONAL_FIELDS,
  CLEAR_AAD_FIELDS,
  type RecordKind,
  type Sealed,
  type StreamKey,
} from './personal-fields.js'
