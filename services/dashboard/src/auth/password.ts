// Password hashing with scrypt (node:crypto). Stored form: scrypt$N$r$p$salt$hash (base64url),
// so parameters can be raised later and old hashes still verify.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  )

export const SCRYPT_DEFAULTS = { N: 16384, r: 8, p: 1, keylen: 32 }
export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 256

export async function hashPassword(password: string, params = SCRYPT_DEFAULTS): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, params.keylen, {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 128 * params.N * params.r * 2,
  })
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** True when `password` matches `stored`; false for a wrong password or a malformed hash. Constant time in the comparison. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number]
  if (![N, r, p].every((x) => Number.isSafeInteger(x) && x > 0) || N > 1 << 20 || (N & (N - 1)) !== 0) return false
  const salt = Buffer.from(parts[4]!, 'base64url')
  const expected = Buffer.from(parts[5]!, 'base64url')
  if (expected.length < 16) return false
  const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: 128 * N * r * 2 })
  return timingSafeEqual(key, expected)
}

/** A hash of a random password: verifying against it costs the same as a real one (no user enumeration by timing). */
let dummy: Promise<string> | undefined
export const dummyHash = (): Promise<string> => (dummy ??= hashPassword(randomBytes(16).toString('hex')))
