// Where the limits are counted, chosen once at start (main.ts): in this instance's memory, or with
// REDIS_URL in Redis for every instance, the instance's own limiters answering while Redis is away
// (docs/limits.md). The Redis client is made here, without I/O; connect() is called by start().
import { Redis } from 'ioredis'
import type { Logger } from '../../../shared/src/log.js'
import type { IngestConfig } from '../config.js'
import type { Limits } from './limits.js'
import { MemoryLimits, localLimiters } from './memory-limits.js'
import { SharedLimits } from './shared-limits.js'
import { RedisLimits } from './redis-limits.js'
import { LimiterFallback } from './limiter-fallback.js'

export interface ChosenLimits {
  limits: Limits
  /** The instance's own limiters (with Redis, what answers while it is away). */
  local: ReturnType<typeof localLimiters>
  /** How often the month's usage is read back from the projector's counters (H5, H33, H34). */
  usageEveryMs: number
  /** Redis is never waited for beyond one connect and one ping; resolves either way. */
  connect(): Promise<void>
  disconnect(): void
}

type LimitsConfig = Pick<IngestConfig, 'redis' | 'usageInFlightMs' | 'usageReconcileMs' | 'usageRefreshMs'>

export function chooseLimits(cfg: LimitsConfig, log: Logger, onFallback: () => void): ChosenLimits {
  const local = localLimiters(cfg.usageInFlightMs)
  if (!cfg.redis) {
    const none = async () => undefined
    return {
      limits: new MemoryLimits(local),
      local,
      usageEveryMs: cfg.usageRefreshMs,
      connect: none,
      disconnect: () => {},
    }
  }
  const r = cfg.redis
  // No offline queue: a call while disconnected fails at once instead of waiting.
  const redis = new Redis(r.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: r.timeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 1000),
  })
  const onError = (what: string, err: unknown) => log.warn(what, { err: err as Error })
  const shared = new SharedLimits({
    redis: new RedisLimits(redis, r.keyPrefix, cfg.usageInFlightMs, onError),
    fallback: new LimiterFallback(
      r.retryMs,
      (c) => {
        if (c.mode === 'local')
          log.warn('limiter: Redis is not answering; enforcing limits per instance until it does', {
            reason: c.reason,
          })
        else log.info('limiter: Redis answers; limits shared across instances')
      },
      { reason: 'connecting' },
    ),
    local,
    onFallback,
    onError,
  })
  // Transitions are logged by the fallback; the client's own error events would repeat on every retry.
  redis.on('error', () => undefined)
  redis.on('ready', () => shared.probeNow())
  return {
    limits: shared,
    local,
    usageEveryMs: cfg.usageReconcileMs,
    // The ping matters: until some call has been answered the limiter is in local mode, where only
    // one check per REDIS_RETRY_MS asks Redis, so the first burst of requests after start would be
    // counted per instance (CI saw 101 of 250).
    connect: () =>
      redis
        .connect()
        .then(async () => {
          const sentAt = Date.now()
          await redis.ping()
          shared.answered(sentAt)
        })
        .catch((err) => {
          log.warn('limiter: Redis not reachable at start; enforcing limits per instance until it is', {
            err: err as Error,
          })
          shared.markUnreachable(Date.now(), `not reachable at start: ${(err as Error).message}`)
        }),
    disconnect: () => redis.disconnect(),
  }
}
