// The stack's Redis (REDIS_URL overrides) under a random key prefix, for services a test starts with
// REDIS_URL set: the environment to pass them, a client to look at the keys, and the keys removed when
// the test ends (month counters would otherwise stay for weeks).
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import type { Teardown } from './harness.js'

export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:16379'

export function redisUnderPrefix(t: Teardown): { redis: Redis; prefix: string; env: Record<string, string> } {
  const prefix = `test:${randomBytes(5).toString('hex')}:`
  const redis = new Redis(REDIS_URL)
  t.teardown(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length) await redis.del(...keys)
    redis.disconnect()
  })
  return { redis, prefix, env: { REDIS_URL, REDIS_KEY_PREFIX: prefix, REDIS_TIMEOUT_MS: '3000' } }
}
