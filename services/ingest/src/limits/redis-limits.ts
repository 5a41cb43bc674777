// Limiter counters in Redis, shared by every ingest instance (issue 14). Each check is one atomic
// Lua script (one round trip, EVALSHA after the first call), over the same fixed windows and with
// the same "count before this call" answers as MemoryLimiterStore, so windows.ts turns them into
// the same results and headers. Keys expire with their window; a month's counter a few days after
// the month (nothing reads it then, and a late release of an expired key is a no-op).
//
// Keys (prefix from REDIS_KEY_PREFIX):
//   <p>rl:<bucket>:<windowStartMs>     per-minute requests of an account (a:<id>) or a client IP (ip:<addr>), H2/H3
//   <p>ev:{<account>}:<windowStartMs>  per-second events of an account, H4
//   <p>mo:{<account>}:<YYYY-MM>        live events granted this month, H5
// The braces keep an account's two keys of one script in one Redis Cluster slot.
//
// Clocks: windows are computed from the calling instance's clock, as in memory; instances must run
// NTP, and a skew of s ms moves that instance's window edges by s ms.
import type { Redis } from 'ioredis'
import { monthRange, windowStart } from './windows.js'

/** After the month ends, its counter lives this much longer. */
export const MONTH_KEY_MARGIN_MS = 7 * 24 * 3600_000

// KEYS[1] bucket; ARGV limit, expire-at (ms). Returns the count before; counts only when it fits.
const TAKE_REQUEST = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c + 1 <= tonumber(ARGV[1]) then
  redis.call('INCR', KEYS[1])
  if c == 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
end
return c`

// The per-second take and the monthly reservation of one request in one step, in H2's order.
// KEYS[1] second window, KEYS[2] month; ARGV n, per-second limit, second expire-at, countable,
// monthly limit, month expire-at. Returns {second count before, month count before or -1 when the
// per-second limit refused the request (nothing taken), granted}.
const ADMIT_EVENTS = `
local n = tonumber(ARGV[1])
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
if before + n > tonumber(ARGV[2]) then return {before, -1, 0} end
redis.call('INCRBY', KEYS[1], n)
if before == 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
local countable = tonumber(ARGV[4])
if countable <= 0 then return {before, 0, 0} end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local left = tonumber(ARGV[5]) - used
if left < 0 then left = 0 end
local granted = countable
if left < granted then granted = left end
if granted > 0 then
  redis.call('INCRBY', KEYS[2], granted)
  redis.call('PEXPIREAT', KEYS[2], ARGV[6])
end
return {before, used, granted}`

// KEYS[1] month; ARGV n. Gives back up to n, never below zero; a missing (expired) key stays missing.
const RELEASE_MONTH = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = tonumber(ARGV[1])
if n > c then n = c end
if n > 0 then redis.call('DECRBY', KEYS[1], n) end
return c - n`

// KEYS month counters; ARGV[1] expire-at, ARGV[i+1] the projector's count for KEYS[i].
// counter = max(counter, projected): never lowers a count (the projector may lag what was granted).
const RECONCILE_MONTH = `
local raised = 0
for i, k in ipairs(KEYS) do
  local p = tonumber(ARGV[i + 1])
  local c = tonumber(redis.call('GET', k) or '0')
  if p > c then
    redis.call('SET', k, p)
    redis.call('PEXPIREAT', k, ARGV[1])
    raised = raised + 1
  end
end
return raised`

interface LimiterCommands {
  limTakeRequest(key: string, limit: number, expireAt: number): Promise<number>
  limAdmitEvents(secKey: string, monthKey: string, n: number, perSecond: number, secExpireAt: number, countable: number, perMonth: number, monthExpireAt: number): Promise<[number, number, number]>
  limReleaseMonth(key: string, n: number): Promise<number>
  limReconcileMonth(numKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>
}

export interface EventsAnswer {
  /** Events of the account in this second before the request. */
  secondBefore: number
  /** Live events counted this month before the request; -1 when the per-second limit refused it. */
  monthBefore: number
  granted: number
}

/** Accounts reconciled per script call (bounds one call's time and argument size). */
const RECONCILE_CHUNK = 500

export class RedisLimits {
  private readonly cmd: LimiterCommands

  constructor(private readonly redis: Redis, private readonly prefix: string) {
    redis.defineCommand('limTakeRequest', { numberOfKeys: 1, lua: TAKE_REQUEST })
    redis.defineCommand('limAdmitEvents', { numberOfKeys: 2, lua: ADMIT_EVENTS })
    redis.defineCommand('limReleaseMonth', { numberOfKeys: 1, lua: RELEASE_MONTH })
    redis.defineCommand('limReconcileMonth', { lua: RECONCILE_MONTH })
    this.cmd = redis as unknown as LimiterCommands
  }

  requestKey(bucket: string, start: number): string {
    return `${this.prefix}rl:${bucket}:${start}`
  }

  monthKey(accountId: string, monthKey: string): string {
    return `${this.prefix}mo:{${accountId}}:${monthKey}`
  }

  /** Count one request in `bucket`'s window if it fits; the count before. */
  takeRequest(bucket: string, limit: number, now: number, windowMs: number): Promise<number> {
    const start = windowStart(now, windowMs)
    return this.cmd.limTakeRequest(this.requestKey(bucket, start), limit, start + windowMs)
  }

  /** The bucket's count in the window of `now`, without counting. */
  async peekRequest(bucket: string, now: number, windowMs: number): Promise<number> {
    const v = await this.redis.get(this.requestKey(bucket, windowStart(now, windowMs)))
    return v === null ? 0 : Number(v)
  }

  /** Take `n` events from the account's second and, if that fits, reserve up to `countable` of the month. */
  async admitEvents(accountId: string, n: number, perSecond: number, countable: number, perMonth: number, now: number, windowMs: number): Promise<EventsAnswer> {
    const start = windowStart(now, windowMs)
    const month = monthRange(now)
    const [secondBefore, monthBefore, granted] = await this.cmd.limAdmitEvents(
      `${this.prefix}ev:{${accountId}}:${start}`,
      this.monthKey(accountId, month.key),
      n, perSecond, start + windowMs, countable, perMonth, month.end + MONTH_KEY_MARGIN_MS,
    )
    return { secondBefore, monthBefore, granted }
  }

  /** Give back `n` of the month of `now` (a reservation Kafka did not take). */
  releaseMonth(accountId: string, n: number, now: number): Promise<number> {
    return this.cmd.limReleaseMonth(this.monthKey(accountId, monthRange(now).key), n)
  }

  /** counter = max(counter, projected) for every account of `usage` in `monthKey`; how many were raised. */
  async reconcileMonth(monthKey: string, usage: ReadonlyMap<string, number>): Promise<number> {
    const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(monthKey)
    if (m === null) throw new RangeError(`monthKey must be YYYY-MM, got ${JSON.stringify(monthKey)}`)
    const expireAt = Date.UTC(Number(m[1]), Number(m[2]), 1) + MONTH_KEY_MARGIN_MS
    const entries = [...usage]
    let raised = 0
    for (let i = 0; i < entries.length; i += RECONCILE_CHUNK) {
      const chunk = entries.slice(i, i + RECONCILE_CHUNK)
      raised += await this.cmd.limReconcileMonth(chunk.length, ...chunk.map(([a]) => this.monthKey(a, monthKey)), expireAt, ...chunk.map(([, c]) => c))
    }
    return raised
  }
}
