// TypeScript twins of the Avro schemas in ./avro. Times are epoch milliseconds (UTC).
// Kept by hand beside the .avsc files; schemas/records.test.ts checks they name the same fields.

export type Environment = 'live' | 'test'

/** A15: `nonce ‖ ciphertext ‖ tag` of the personal fields, and the id of the data key that opens it. */
export interface SealedFields {
  key_id: string
  body: Buffer
}

export interface EventRecord {
  event_id: string
  account_id: string
  environment: Environment
  key_id: string
  event: string
  user_id: string
  user_email: string | null
  user_traits: string | null
  timestamp: number
  original_timestamp: number | null
  received_at: number
  sent_at: number | null
  timestamp_flagged: boolean
  properties: string
  context: string
  ip: string | null
  user_agent: string | null
  message_id: string | null
  /** H52. Optional here only for literals written before v2; every decoded record has it (Avro default null). */
  anonymous_id?: string | null
  /** A15 (v3): the personal fields sealed; null or absent: in clear. */
  enc?: SealedFields | null
}

export interface IdentifyRecord {
  event_id: string
  account_id: string
  environment: Environment
  key_id: string
  user_id: string
  email: string | null
  traits: string
  timestamp: number
  original_timestamp: number | null
  received_at: number
  sent_at: number | null
  timestamp_flagged: boolean
  context: string
  ip: string | null
  user_agent: string | null
  message_id: string | null
  /** H52. Optional here only for literals written before v2; every decoded record has it (Avro default null). */
  anonymous_id?: string | null
  /** A15 (v3): the personal fields sealed; null or absent: in clear. */
  enc?: SealedFields | null
}

export type AccountStatus = 'active' | 'disabled'
export interface AccountRecord {
  account_id: string
  name: string
  plan: string
  status: AccountStatus
  owner_email: string | null
  password_hash: string | null
  created_at: number
  updated_at: number
  /** Optional here only for literals written before v2; every decoded record has them (Avro defaults). */
  session_version?: number
  revoked_sessions?: RevokedSession[]
  /** H56; optional here only for literals written before v3 (decoded records default to 'full'). */
  ip_handling?: IpHandling
  /** H60: months of events kept; 0 (the default) keeps them for ever. Optional only for literals written before v4. */
  retention_months?: number
}

/** What ingest keeps of the client IP (H56): as received, truncated, or nothing. */
export type IpHandling = 'full' | 'truncated' | 'none'
export const IP_HANDLINGS: readonly IpHandling[] = ['full', 'truncated', 'none']

export interface RevokedSession {
  sid: string
  expires_at: number
}

export interface PlanRecord {
  name: string
  requests_per_minute: number
  events_per_second: number
  events_per_month: number
  emails_per_month: number
  updated_at: number
}

export type KeyType = 'live' | 'test'
export type KeyStatus = 'active' | 'inactive' | 'revoked'
export interface ApiKeyRecord {
  key_id: string
  account_id: string
  key_hash: string
  masked: string
  name: string
  type: KeyType
  status: KeyStatus
  created_at: number
  updated_at: number
}

/** Revocation is terminal: a key record that would bring a revoked key back (a reactivate that
 * raced a revoke and landed after it on the accounts topic) is ignored by every reader. */
export function undoesRevocation(
  prev: Pick<ApiKeyRecord, 'status'> | undefined,
  next: Pick<ApiKeyRecord, 'status'>,
): boolean {
  return prev?.status === 'revoked' && next.status !== 'revoked'
}

export interface DeadLetterRecord {
  topic: string
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
  reason: string
  error_code: string
  failed_at: number
}

/** A request to erase one person, and its receipt (A12): one record per (account, user) on the
 * compacted erasures topic, written again as its steps finish. */
export interface ErasureRecord {
  erasure_id: string
  account_id: string
  user_id: string
  requested_by: string
  requested_at: number
  suppress: boolean
  projections_purged_at: number | null
  history_unreadable_at: number | null
  disk_gone_at: number | null
  updated_at: number
  /** A22: with sealing on, the person's pseudonym (user_id is then empty) and the user id sealed. */
  pseudonym?: string | null
  sealed_user_id?: Buffer | null
}

/** One account's refused requests counted by one ingest instance since its last drain (H65, H66). */
export interface RefusalsRecord {
  account_id: string
  instance_id: string
  drained_at: number
  counts: RefusalCountRecord[]
  samples: RefusalSampleRecord[]
}

export interface RefusalCountRecord {
  environment: string
  code: string
  endpoint: string
  minute: number
  count: number
}

export interface RefusalSampleRecord {
  environment: string
  code: string
  endpoint: string
  at: number
  message: string
  body: string
}

/** The record kinds the projector and ingest know, each with its .avsc file name. */
export const SCHEMA_FILES = {
  Event: 'event.avsc',
  Identify: 'identify.avsc',
  Account: 'account.avsc',
  Plan: 'plan.avsc',
  ApiKey: 'api-key.avsc',
  DeadLetter: 'dlq.avsc',
  Erasure: 'erasure.avsc',
  Refusals: 'refusals.avsc',
} as const
export type SchemaName = keyof typeof SCHEMA_FILES

/** Message keys on the compacted accounts topic: one live value per key (A3). */
export const accountsKey = {
  account: (accountId: string) => `account:${accountId}`,
  plan: (name: string) => `plan:${name}`,
  apiKey: (keyId: string) => `key:${keyId}`,
}

/** Message key on the event and identify topics: one user's records stay in order (A3). */
export const userKey = (accountId: string, userId: string) => `${accountId}\u0000${userId}`

/** Message key on the compacted erasures topic: the person's own record key (userKey), so the
 * projector matches a record to an erasure by its key before decoding it (A12). */
export const erasureKey = userKey
