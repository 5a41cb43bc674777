// Limiter counters in Redis, shared by every ingest instance (docs/scaling.md). Each check is one atomic
// Lua script (one round trip, EVALSHA after the first call), over the same fixed windows and with
// the same "count before this call" answers as MemoryLimiterStore, so windows.ts turns them into
// the same results and headers. Keys expire with their window; a month's counter a few days after
// the month (nothing reads it then, and a late release of an expired key is a no-op).
//
// Keys (prefix from REDIS_KEY_PREFIX):
//   <p>rl:<bucket>:<windowStartMs>     per-minute requests of an account (a:<id>) or a client IP (ip:<addr>), H2/H3
//   <p>ev:{<account>}:<windowStartMs>  per-second events of an account, H4
//   <p>rl:x:<key>:<address>:<windowStartMs>  requests of a key and client address refused for their body, H32
//   <p>mo:{<account>}:<YYYY-MM>        live events counted this month, H5 (test events: mo:{<account>}:test:<YYYY-MM>, H33)
//   <p>mm:{<account>}:<YYYY-MM>        the same counts per minute (a hash), for reconciliation (H34)
//   <p>id:{<account>}:<env>:<message id>  a message id counted lately, for USAGE_IN_FLIGHT_MS (H34)
// The braces keep an account's keys of one script in one Redis Cluster slot.
//
// Clocks: windows are computed from the calling instance's clock, as in memory; instances must run
// NTP, and a skew of s ms moves that instance's window edges by s ms.
import type { Redis } from 'ioredis'
import { windowStart } from './windows.js'
import { monthRange, type QuotaReservation } from './monthly-quota.js'
import type { QuotaHolder } from './limits.js'

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

// TAKE_REQUEST guarded by the budget of requests refused for their body (H32). KEYS[1] bucket,
// KEYS[2] the key and address's refused bucket; ARGV limit, expire-at, refused limit. Returns {count
// before, refused count}; nothing is taken when the refused budget is spent.
const TAKE_GUARDED = `
local r = tonumber(redis.call('GET', KEYS[2]) or '0')
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if r >= tonumber(ARGV[3]) then return {c, r} end
if c + 1 <= tonumber(ARGV[1]) then
  redis.call('INCR', KEYS[1])
  if c == 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
end
return {c, r}`

// A request refused for its body (H32): KEYS[1] the account bucket it was counted in gives it back,
// KEYS[2] the refused bucket counts it; ARGV expire-at.
const REFUSED_BODY = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c > 0 then redis.call('DECR', KEYS[1]) end
local r = redis.call('INCR', KEYS[2])
if r == 1 then redis.call('PEXPIREAT', KEYS[2], ARGV[1]) end
return r`

// The per-second take and the monthly reservation of one request in one step, in H2's order.
// KEYS[1] second window, KEYS[2] month counter, KEYS[3] the month's counts per minute (a hash), KEYS[4..]
// the request's distinct message ids (H34). ARGV n, per-second limit, second expire-at, countable,
// monthly limit, month expire-at, id lifetime (ms), this minute's field, then per countable item the
// index of its id among KEYS[4..] (1-based) or 0 without one. monthly-quota.ts admitIds is the same rule.
// Returns {second count before, month count before or -1 when the per-second limit refused the request
// (nothing taken), counted, per countable item '1' admitted / '0' refused, per id '1' counted now}.
const ADMIT_EVENTS = `
local n = tonumber(ARGV[1])
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
if before + n > tonumber(ARGV[2]) then return {before, -1, 0, '', ''} end
redis.call('INCRBY', KEYS[1], n)
if before == 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
local countable = tonumber(ARGV[4])
if countable <= 0 then return {before, 0, 0, '', ''} end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local left = tonumber(ARGV[5]) - used
if left < 0 then left = 0 end
local decided = {}
local out = {}
local new = {}
for k = 4, #KEYS do new[k - 3] = '0' end
local charged = 0
for i = 1, countable do
  local k = tonumber(ARGV[8 + i])
  local ok = decided[k]
  if k == 0 or ok == nil then
    if k > 0 and redis.call('EXISTS', KEYS[3 + k]) == 1 then ok = true
    elseif charged < left then
      ok = true
      charged = charged + 1
      if k > 0 then
        redis.call('SET', KEYS[3 + k], '1', 'PX', ARGV[7])
        new[k] = '1'
      end
    else ok = false end
    if k > 0 then decided[k] = ok end
  end
  out[i] = ok and '1' or '0'
end
if charged > 0 then
  redis.call('INCRBY', KEYS[2], charged)
  redis.call('PEXPIREAT', KEYS[2], ARGV[6])
  redis.call('HINCRBY', KEYS[3], ARGV[8], charged)
  redis.call('PEXPIREAT', KEYS[3], ARGV[6])
end
return {before, used, charged, table.concat(out), table.concat(new)}`

// KEYS[1] month counter, KEYS[2] its counts per minute, KEYS[3..] ids counted by the request (forgotten);
// ARGV n, the minute's field. Gives back up to n, never below zero; a missing (expired) key stays missing.
const RELEASE_MONTH = `
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = tonumber(ARGV[1])
if n > c then n = c end
if n > 0 then
  redis.call('DECRBY', KEYS[1], n)
  if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then redis.call('HINCRBY', KEYS[2], ARGV[2], -n) end
end
return c - n`

// KEYS pairs: a month counter and its counts per minute; ARGV[1] expire-at, ARGV[2] the oldest minute
// still in flight (USAGE_IN_FLIGHT_MS), ARGV[i+2] the projector's count for pair i. H34:
//   counter = max(projected, min(counter, projected + counted in flight))
// raised to what is stored, lowered to what is stored plus what may be on its way; older minutes dropped.
const RECONCILE_MONTH = `
local changed = 0
local from = tonumber(ARGV[2])
for i = 1, #KEYS / 2 do
  local k, h = KEYS[2 * i - 1], KEYS[2 * i]
  local p = tonumber(ARGV[i + 2])
  local c = tonumber(redis.call('GET', k) or '0')
  local fields = redis.call('HGETALL', h)
  local inflight = 0
  for j = 1, #fields, 2 do
    if tonumber(fields[j]) < from then redis.call('HDEL', h, fields[j])
    else inflight = inflight + tonumber(fields[j + 1]) end
  end
  local v = c
  if v > p + inflight then v = p + inflight end
  if v < p then v = p end
  if v ~= c then
    redis.call('SET', k, v)
    redis.call('PEXPIREAT', k, ARGV[1])
    changed = changed + 1
  end
end
return changed`

interface LimiterCommands {
  limTakeRequest(key: string, limit: number, expireAt: number): Promise<number>
  limTakeGuarded(
    key: string,
    refusedKey: string,
    limit: number,
    expireAt: number,
    refusedLimit: number,
  ): Promise<[number, number]>
  limRefusedBody(key: string, refusedKey: string, expireAt: number): Promise<number>
  limAdmitEvents(
    numKeys: number,
    ...keysThenArgs: Array<string | number>
  ): Promise<[number, number, number, string, string]>
  limReleaseMonth(numKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>
  limReconcileMonth(numKeys: number, ...keysThenArgs: Array<string | number>): Promise<number>
}

export interface EventsAnswer {
  /** Events of the account in this second before the request. */
  secondBefore: number
  /** Events counted this month before the request; -1 when the per-second limit refused it. */
  monthBefore: number
  /** Countable items admitted (repeats of a counted id included) and, of those, newly counted (H34). */
  granted: number
  charged: number
  /** Per countable item. */
  accepted: boolean[]
  /** Ids counted by this request. */
  newIds: string[]
}

/** Accounts reconciled per script call (bounds one call's time and argument size). */
const RECONCILE_CHUNK = 500
const MINUTE_MS = 60_000
const MONTH_KEY_RE = /^(\d{4})-(0[1-9]|1[0-2])$/

type Env = 'live' | 'test'

export class RedisLimits implements QuotaHolder {
  private readonly cmd: LimiterCommands

  /** `inFlightMs`: USAGE_IN_FLIGHT_MS, how long counted ids are kept and counts taken as in flight (H34);
   *  `onError`: told of a give-back that Redis did not take. */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly inFlightMs = 600_000,
    private readonly onError?: (what: string, err: unknown) => void,
  ) {
    redis.defineCommand('limTakeRequest', { numberOfKeys: 1, lua: TAKE_REQUEST })
    redis.defineCommand('limTakeGuarded', { numberOfKeys: 2, lua: TAKE_GUARDED })
    redis.defineCommand('limRefusedBody', { numberOfKeys: 2, lua: REFUSED_BODY })
    redis.defineCommand('limAdmitEvents', { lua: ADMIT_EVENTS })
    redis.defineCommand('limReleaseMonth', { lua: RELEASE_MONTH })
    redis.defineCommand('limReconcileMonth', { lua: RECONCILE_MONTH })
    this.cmd = redis as unknown as LimiterCommands
  }

  requestKey(bucket: string, start: number): string {
    return `${this.prefix}rl:${bucket}:${start}`
  }

  /** The month's counter of an account's live (H5) or test (H33) events. */
  monthKey(accountId: string, monthKey: string, env: Env = 'live'): string {
    return `${this.prefix}mo:{${accountId}}:${env === 'live' ? '' : 'test:'}${monthKey}`
  }

  /** The same counts per minute (H34). */
  minutesKey(accountId: string, monthKey: string, env: Env = 'live'): string {
    return `${this.prefix}mm:{${accountId}}:${env === 'live' ? '' : 'test:'}${monthKey}`
  }

  idKey(accountId: string, env: Env, messageId: string): string {
    return `${this.prefix}id:{${accountId}}:${env}:${messageId}`
  }

  /** Count one request in `bucket`'s window if it fits; the count before. */
  takeRequest(bucket: string, limit: number, now: number, windowMs: number): Promise<number> {
    const start = windowStart(now, windowMs)
    return this.cmd.limTakeRequest(this.requestKey(bucket, start), limit, start + windowMs)
  }

  /** takeRequest unless `refusedBucket` has spent `refusedLimit` (H32): [count before, refused count]. */
  takeGuarded(
    bucket: string,
    limit: number,
    refusedBucket: string,
    refusedLimit: number,
    now: number,
    windowMs: number,
  ): Promise<[number, number]> {
    const start = windowStart(now, windowMs)
    return this.cmd.limTakeGuarded(
      this.requestKey(bucket, start),
      this.requestKey(refusedBucket, start),
      limit,
      start + windowMs,
      refusedLimit,
    )
  }

  /** A request counted in `bucket` at `now` was refused for its body: given back there, counted in `refusedBucket` (H32). */
  refusedBody(bucket: string, refusedBucket: string, now: number, windowMs: number): Promise<number> {
    const start = windowStart(now, windowMs)
    return this.cmd.limRefusedBody(
      this.requestKey(bucket, start),
      this.requestKey(refusedBucket, start),
      start + windowMs,
    )
  }

  /** The bucket's count in the window of `now`, without counting. */
  async peekRequest(bucket: string, now: number, windowMs: number): Promise<number> {
    const v = await this.redis.get(this.requestKey(bucket, windowStart(now, windowMs)))
    return v === null ? 0 : Number(v)
  }

  /** Take `n` events from the account's second and, if that fits, reserve the month's counter of `env`
   *  for the countable items, one per entry of `ids` (its message id or undefined), as monthly-quota.ts admitIds. */
  async takeEvents(
    accountId: string,
    env: Env,
    n: number,
    perSecond: number,
    ids: ReadonlyArray<string | undefined>,
    perMonth: number,
    now: number,
    windowMs: number,
  ): Promise<EventsAnswer> {
    const start = windowStart(now, windowMs)
    const month = monthRange(now)
    const distinct = new Map<string, number>()
    const refs = ids.map((id) => {
      if (id === undefined) return 0
      let k = distinct.get(id)
      if (k === undefined) distinct.set(id, (k = distinct.size + 1))
      return k
    })
    const keys = [
      `${this.prefix}ev:{${accountId}}:${start}`,
      this.monthKey(accountId, month.key, env),
      this.minutesKey(accountId, month.key, env),
    ]
    for (const id of distinct.keys()) keys.push(this.idKey(accountId, env, id))
    const [secondBefore, monthBefore, charged, mask, counted] = await this.cmd.limAdmitEvents(
      keys.length,
      ...keys,
      n,
      perSecond,
      start + windowMs,
      ids.length,
      perMonth,
      month.end + MONTH_KEY_MARGIN_MS,
      this.inFlightMs,
      windowStart(now, MINUTE_MS),
      ...refs,
    )
    const accepted = Array.from({ length: ids.length }, (_, i) => mask.charCodeAt(i) === 49)
    let granted = 0
    for (const a of accepted) if (a) granted++
    const newIds = [...distinct.keys()].filter((_, i) => counted.charCodeAt(i) === 49)
    return { secondBefore, monthBefore, granted, charged, accepted, newIds }
  }

  /** QuotaHolder: give back a reservation made here whose events Kafka did not take (A4). A failed
   *  give-back leaves the shared count too high until reconciliation lowers it (H34; errs towards
   *  refusing early), so it is told, not thrown. */
  giveBack(accountId: string, environment: Env, r: QuotaReservation, now: number): void {
    if (r.charged <= 0) return
    this.releaseMonth(accountId, r.charged, now, environment, r.newIds).catch((err) =>
      this.onError?.('monthly release in Redis failed', err),
    )
  }

  /** Give back `n` of the month of `now` (a reservation Kafka did not take) and forget `ids` it counted. */
  releaseMonth(
    accountId: string,
    n: number,
    now: number,
    env: Env = 'live',
    ids: readonly string[] = [],
  ): Promise<number> {
    const key = monthRange(now).key
    const keys = [
      this.monthKey(accountId, key, env),
      this.minutesKey(accountId, key, env),
      ...ids.map((id) => this.idKey(accountId, env, id)),
    ]
    return this.cmd.limReleaseMonth(keys.length, ...keys, n, windowStart(now, MINUTE_MS))
  }

  /**
   * H34, for every account of `usage` in `monthKey` and `env`: counter = max(projected, min(counter,
   * projected + counted within USAGE_IN_FLIGHT_MS before `now`)). How many counters changed.
   */
  async reconcileMonth(
    monthKey: string,
    usage: ReadonlyMap<string, number>,
    now: number,
    env: Env = 'live',
  ): Promise<number> {
    const m = MONTH_KEY_RE.exec(monthKey)
    if (m === null) throw new RangeError(`monthKey must be YYYY-MM, got ${JSON.stringify(monthKey)}`)
    const expireAt = Date.UTC(Number(m[1]), Number(m[2]), 1) + MONTH_KEY_MARGIN_MS
    const from = windowStart(now - this.inFlightMs, MINUTE_MS)
    const entries = [...usage]
    let changed = 0
    for (let i = 0; i < entries.length; i += RECONCILE_CHUNK) {
      const chunk = entries.slice(i, i + RECONCILE_CHUNK)
      const keys = chunk.flatMap(([a]) => [this.monthKey(a, monthKey, env), this.minutesKey(a, monthKey, env)])
      changed += await this.cmd.limReconcileMonth(keys.length, ...keys, expireAt, from, ...chunk.map(([, c]) => c))
    }
    return changed
  }
}
