// API key generation, hashing and masking (H1: only a SHA-256 hash of a key is stored; the
// secret is shown once). Never log a key; log `maskKey(key)` or the key_id instead.

import * as crypto from 'node:crypto'
import type { KeyType } from '../../../../schemas/records.js'

/** Key prefixes by type (H1); ingest's Authorization parser checks them. */
export const LIVE_KEY_PREFIX = 'svc_live_'
export const TEST_KEY_PREFIX = 'svc_test_'

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
/** Length of the random body of generated keys (H1 requires >= 32). */
export const GENERATED_KEY_BODY_LENGTH = 40
// Bytes >= 248 (= 4 * 62) are rejected so `b % 62` is uniform: no modulo bias.
const REJECT_FROM = 248

/** Lower-case hex SHA-256 of the whole key, prefix included: the stored `key_hash`. */
export function hashKey(key: string): string {
  return oneShotHash !== undefined
    ? oneShotHash('sha256', key, 'hex')
    : crypto.createHash('sha256').update(key, 'utf8').digest('hex')
}

// Every request hashes its key. The one-shot `crypto.hash` (Node >= 20.12) skips the Hash
// object and its stream machinery: about a third of the cost per key (bench/HISTORY.md).
// Older Node 20 lacks it, so the Hash-object path stays as the fallback; both give the
// same digest of the UTF-8 bytes.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash

export interface GeneratedKey {
  /** The secret: show once, never store or log. */
  key: string
  hash: string
  masked: string
}

export function generateKey(type: KeyType): GeneratedKey {
  let body = ''
  while (body.length < GENERATED_KEY_BODY_LENGTH) {
    // 64 bytes give 40 accepted characters with overwhelming probability (~97% pass each)
    for (const b of crypto.randomBytes(64)) {
      if (b >= REJECT_FROM) continue
      body += BASE62[b % 62]
      if (body.length === GENERATED_KEY_BODY_LENGTH) break
    }
  }
  const key = (type === 'live' ? LIVE_KEY_PREFIX : TEST_KEY_PREFIX) + body
  return { key, hash: hashKey(key), masked: maskKey(key) }
}

/**
 * Display form for the dashboard's key list and for logs: prefix, first 4 and last 4 body
 * characters, e.g. `svc_live_AbCd…wxyz`. Short or unrecognised values reveal nothing.
 */
export function maskKey(key: string): string {
  const prefix = key.startsWith(LIVE_KEY_PREFIX)
    ? LIVE_KEY_PREFIX
    : key.startsWith(TEST_KEY_PREFIX)
      ? TEST_KEY_PREFIX
      : ''
  if (prefix === '') return '…'
  const body = key.slice(prefix.length)
  if (body.length < 16) return `${prefix}…`
  return `${prefix}${body.slice(0, 4)}…${body.slice(-4)}`
}
