// The client: a bounded queue of items, cut into batches by count, bytes and time, sent to
// POST /v1/events with at most `maxInFlight` requests at once, each retried until it is stored or
// has failed for good. "A 200 means stored": an item leaves the queue only on a 200 that accepted
// it, or with a call to onError saying why it never will be.
import { TrackingError } from './errors.js'
import { buildAlias, buildEvent, buildIdentify, toUser, type ItemOptions, type UserInput } from './items.js'
import { batchBody, bodyBytes, takeCount, utf8Bytes, type Queued } from './batches.js'
import { nextDelay, type RetryPolicy } from './retry.js'
import { post, type Outcome } from './transport.js'
import { anonymousId, browserContext, canGzip, isBrowser, onPageHide, randomId } from './platform.js'
import {
  BATCH_BODY_LIMIT_BYTES,
  MAX_BATCH_ITEMS,
  type JsonObject,
  type WireItem,
  type WireItemResult,
  type WireUser,
} from './wire.js'

export const SDK_NAME = '@event-tracking/sdk'
export const SDK_VERSION = '0.1.0'

/** Browsers refuse keepalive requests once the page's keepalive bodies in flight pass 64 KiB. */
export const KEEPALIVE_BUDGET_BYTES = 60_000

export interface ClientOptions {
  /** svc_live_… or svc_test_… key. */
  apiKey: string
  /** Where the ingest API is, e.g. https://track.example.com (no /v1). */
  baseUrl: string
  /** Items per request, 1 to 100 (the API's limit). Default 100. */
  flushAt?: number
  /** Bytes of JSON per request, below the API's 10 MB batch limit. Default 1,000,000. */
  maxBatchBytes?: number
  /** Send what is queued at least this often, in ms. Default 10,000 (docs/api.md Client libraries: flush after 10 s). */
  flushInterval?: number
  /** Items held at most (queued and in flight); more are dropped and reported as QUEUE_FULL. Default 10,000. */
  maxQueueSize?: number
  /** Requests in flight at once. Default 2. */
  maxInFlight?: number
  /** Retries of a failed request before its items are reported as failed. Default 10. */
  maxRetries?: number
  /** First backoff step in ms. Default 500. */
  retryMinDelay?: number
  /** Largest backoff step in ms. Default 30,000. */
  retryMaxDelay?: number
  /** A server-requested wait (Retry-After, X-RateLimit-Reset) longer than this fails the batch instead. Default 120,000. */
  maxRetryAfter?: number
  /** Abort a request without an answer after this many ms (then retry). Default 15,000. */
  requestTimeout?: number
  /** gzip request bodies of 1 KB and more where CompressionStream exists. Default true. */
  gzip?: boolean
  /** Merged into every item's context (a `library` entry is added; browsers add page, locale, ...). */
  context?: JsonObject
  /** Default user of track() (without one, track() uses the anonymous id). */
  user?: UserInput
  /**
   * The visitor's anonymous id, sent on every item so that identify() links it to the user once known
   * (docs/api.md, H50, H71). Browsers default to one kept in localStorage; elsewhere none unless given.
   */
  anonymousId?: string
  /** Called with every failure and the items it concerns; those items will not be stored. */
  onError?: (error: TrackingError, items: readonly WireItem[]) => void
  /** Browsers: send what is queued with keepalive fetch when the page is hidden or left. Default true. */
  flushOnPageHide?: boolean
  /** fetch to use. Default globalThis.fetch. */
  fetch?: typeof fetch
}

export interface ClientStats {
  /** Items waiting for a request. */
  queued: number
  /** Items in requests not yet answered (retries included). */
  inFlight: number
  /** Items the API accepted. */
  delivered: number
  /** Items reported to onError as failed by the API or after the last retry. */
  failed: number
  /** Items never sent because the queue was full (or the client closed, or too large). */
  dropped: number
  /** Requests made, retries included. */
  requests: number
  /** Of which retries. */
  retries: number
}

interface Waiter {
  upTo: number
  resolve: () => void
}

/** Waits `ms`, or less if `stop` fires, so a shut-down client leaves no timer behind. */
const sleep = (ms: number, stop: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (stop.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      stop.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    stop.addEventListener('abort', done)
  })

export class TrackingClient {
  private readonly url: string
  private readonly apiKey: string
  private readonly flushAt: number
  private readonly maxBatchBytes: number
  private readonly flushInterval: number
  private readonly maxQueueSize: number
  private readonly maxInFlight: number
  private readonly policy: RetryPolicy
  private readonly requestTimeout: number
  private readonly gzip: boolean
  private readonly context: JsonObject
  private readonly onError: (error: TrackingError, items: readonly WireItem[]) => void
  private readonly fetchFn: typeof fetch

  private user: WireUser | undefined
  private anonymous: string | undefined
  private readonly queue: Queued[] = []
  private readonly inFlight = new Set<Queued[]>()
  private seq = 0
  /** Items up to this sequence number are sent even in partial batches (flush, timer, shutdown). */
  private drainUpTo = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private waiters: Waiter[] = []
  private closed = false
  private keepaliveInFlight = 0
  /** Batches already sent with keepalive (page hide), so a second hide does not send them again. */
  private readonly keepaliveSent = new WeakSet<Queued[]>()
  /** Aborts requests and retry waits when shutdown() gives up. */
  private readonly stop = new AbortController()
  private readonly removePageHide: () => void
  private readonly counts = { delivered: 0, failed: 0, dropped: 0, requests: 0, retries: 0 }

  constructor(o: ClientOptions) {
    if (!o || typeof o.apiKey !== 'string' || o.apiKey.length === 0) throw new TypeError('apiKey is required')
    if (typeof o.baseUrl !== 'string') throw new TypeError('baseUrl is required, e.g. https://track.example.com')
    this.url = new URL('v1/events', o.baseUrl.endsWith('/') ? o.baseUrl : o.baseUrl + '/').toString()
    this.apiKey = o.apiKey
    this.flushAt = intOption('flushAt', o.flushAt, 100, 1, MAX_BATCH_ITEMS)
    this.maxBatchBytes = intOption('maxBatchBytes', o.maxBatchBytes, 1_000_000, 1024, BATCH_BODY_LIMIT_BYTES - 1)
    this.flushInterval = intOption('flushInterval', o.flushInterval, 10_000, 0, 24 * 3600_000)
    this.maxQueueSize = intOption('maxQueueSize', o.maxQueueSize, 10_000, 1, 10_000_000)
    this.maxInFlight = intOption('maxInFlight', o.maxInFlight, 2, 1, 64)
    this.policy = {
      maxRetries: intOption('maxRetries', o.maxRetries, 10, 0, 1000),
      minDelayMs: intOption('retryMinDelay', o.retryMinDelay, 500, 1, 3600_000),
      maxDelayMs: intOption('retryMaxDelay', o.retryMaxDelay, 30_000, 1, 3600_000),
      maxRetryAfterMs: intOption('maxRetryAfter', o.maxRetryAfter, 120_000, 0, 24 * 3600_000),
    }
    this.requestTimeout = intOption('requestTimeout', o.requestTimeout, 15_000, 1, 3600_000)
    this.gzip = (o.gzip ?? true) && canGzip
    this.context = { ...browserContext(), ...o.context, library: { name: SDK_NAME, version: SDK_VERSION } }
    this.onError = o.onError ?? defaultOnError
    const f = o.fetch ?? globalThis.fetch
    if (typeof f !== 'function') throw new TypeError('no fetch: pass options.fetch')
    this.fetchFn = f.bind(globalThis)
    this.anonymous = o.anonymousId ?? (isBrowser ? anonymousId() : undefined)
    this.user = toUser(o.user) ?? (this.anonymous !== undefined ? { id: this.anonymous } : undefined)
    this.removePageHide = (o.flushOnPageHide ?? true) ? onPageHide(() => this.sendOnPageHide()) : () => undefined
  }

  /** Queues an event; returns its message_id. Throws TypeError for a missing name or user. */
  track(event: string, properties?: JsonObject, options: ItemOptions = {}): string {
    const item = buildEvent(event, properties, options, this.env())
    this.enqueue(item)
    return item.message_id!
  }

  /**
   * Queues an identify (profile update, no event) and makes `userId` this client's default user
   * for track(). `email` in traits (or options.email) sets the profile email (H10).
   */
  identify(userId: string, traits?: JsonObject, options: Omit<ItemOptions, 'user'> & { email?: string } = {}): string {
    const item = buildIdentify(userId, traits, options, this.env())
    this.user = { id: userId }
    this.enqueue(item)
    return item.message_id!
  }

  /**
   * Links `previousId` (an anonymous id, or a known user id being merged) to `userId` and makes
   * `userId` this client's default user; stored as Segment's alias is (H50). Returns its message_id.
   */
  alias(previousId: string, userId: string, options: Omit<ItemOptions, 'user'> = {}): string {
    const item = buildAlias(previousId, userId, options, this.env())
    this.user = { id: userId }
    this.enqueue(item)
    return item.message_id!
  }

  /** The anonymous id sent with every item (undefined when there is none). */
  get anonymousId(): string | undefined {
    return this.anonymous
  }

  /** Resolves when every item queued before the call has been accepted or reported to onError. */
  flush(): Promise<void> {
    const upTo = this.seq
    if (this.settledUpTo(upTo)) return Promise.resolve()
    this.drainUpTo = Math.max(this.drainUpTo, upTo)
    const done = new Promise<void>((resolve) => this.waiters.push({ upTo, resolve }))
    this.pump()
    return done
  }

  /**
   * Stops taking items and flushes. Items still unacknowledged after `timeoutMs` (default 30 s) are
   * reported as SHUTDOWN_TIMEOUT (they may still be stored, if a request was under way).
   * Node: call it before the process exits, e.g. from a SIGTERM handler (see closeOnSignals).
   */
  async shutdown(timeoutMs = 30_000): Promise<void> {
    this.closed = true
    this.removePageHide()
    let timer: ReturnType<typeof setTimeout> | undefined
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)))
    const r = await Promise.race([this.flush().then(() => 'done' as const), timedOut])
    clearTimeout(timer)
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (r === 'timeout') {
      const left = [...this.queue.splice(0), ...[...this.inFlight].flat()]
      this.inFlight.clear()
      this.stop.abort()
      if (left.length) {
        this.counts.failed += left.length
        this.report(
          new TrackingError(
            'SHUTDOWN_TIMEOUT',
            `shutdown after ${timeoutMs} ms with ${left.length} items unacknowledged`,
            { retriable: true },
          ),
          left,
        )
      }
      this.resolveWaiters(true)
    }
  }

  stats(): ClientStats {
    let inFlight = 0
    for (const b of this.inFlight) inFlight += b.length
    return { queued: this.queue.length, inFlight, ...this.counts }
  }

  // ---- internals

  private env() {
    return {
      now: new Date(),
      newId: randomId,
      context: this.context,
      user: this.user,
      anonymousId: this.anonymous,
    }
  }

  private held(): number {
    let n = this.queue.length
    for (const b of this.inFlight) n += b.length
    return n
  }

  private enqueue(item: WireItem) {
    const json = JSON.stringify(item)
    const bytes = utf8Bytes(json)
    if (this.closed) return this.drop(new TrackingError('CLIENT_CLOSED', 'the client was shut down'), item)
    if (bodyBytes([bytes]) > this.maxBatchBytes) {
      return this.drop(
        new TrackingError(
          'ITEM_TOO_LARGE',
          `the item is ${bytes} bytes of JSON; maxBatchBytes is ${this.maxBatchBytes}`,
        ),
        item,
      )
    }
    if (this.held() >= this.maxQueueSize) {
      return this.drop(
        new TrackingError('QUEUE_FULL', `queue full (${this.maxQueueSize} items); the item was dropped`, {
          retriable: true,
        }),
        item,
      )
    }
    this.queue.push({ item, json, bytes, seq: ++this.seq })
    this.pump()
    if (this.queue.length > 0 && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        this.drainUpTo = Math.max(this.drainUpTo, this.seq)
        this.pump()
      }, this.flushInterval)
    }
  }

  private drop(error: TrackingError, item: WireItem) {
    this.counts.dropped++
    this.report(error, [{ item, json: '', bytes: 0, seq: 0 }])
  }

  /** Starts requests while slots are free and a batch is due (full, or asked for by flush/timer). */
  private pump() {
    while (this.inFlight.size < this.maxInFlight && this.queue.length > 0) {
      const { count, full } = takeCount(this.queue, this.flushAt, this.maxBatchBytes)
      if (!full && this.queue[0].seq > this.drainUpTo) break
      const batch = this.queue.splice(0, count)
      this.inFlight.add(batch)
      void this.deliver(batch, false).finally(() => {
        this.inFlight.delete(batch)
        this.afterSettle()
      })
    }
    if (this.queue.length === 0 && this.timer !== undefined) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
  }

  private afterSettle() {
    this.pump()
    this.resolveWaiters(false)
  }

  private settledUpTo(upTo: number): boolean {
    if (this.queue.length > 0 && this.queue[0].seq <= upTo) return false
    for (const b of this.inFlight) if (b.some((q) => q.seq <= upTo)) return false
    return true
  }

  private resolveWaiters(all: boolean) {
    const keep: Waiter[] = []
    for (const w of this.waiters) all || this.settledUpTo(w.upTo) ? w.resolve() : keep.push(w)
    this.waiters = keep
  }

  /** One batch from first attempt to its end: stored, failed for good, or retries exhausted. */
  private async deliver(batch: Queued[], keepalive: boolean): Promise<void> {
    let attempt = 0
    for (;;) {
      this.counts.requests++
      const outcome: Outcome = await post({
        url: this.url,
        apiKey: this.apiKey,
        body: batchBody(batch, new Date()),
        gzip: this.gzip,
        keepalive: keepalive && attempt === 0,
        timeoutMs: this.requestTimeout,
        fetch: this.fetchFn,
        stop: this.stop.signal,
      })
      if (!this.inFlight.has(batch)) return // shutdown gave up on it and reported it
      if (outcome.kind === 'ok') return this.settleResults(batch, outcome.results, undefined)
      if (outcome.kind === 'fail')
        return this.settleResults(batch, outcome.results, outcome.error.withAttempts(attempt + 1))
      const wait = nextDelay(attempt, this.policy, outcome.serverDelayMs)
      if (attempt >= this.policy.maxRetries || (outcome.serverDelayMs ?? 0) > this.policy.maxRetryAfterMs) {
        this.counts.failed += batch.length
        return this.report(outcome.error.withAttempts(attempt + 1), batch)
      }
      attempt++
      this.counts.retries++
      await sleep(wait, this.stop.signal)
      if (!this.inFlight.has(batch)) return
    }
  }

  /**
   * Per-item results (H11): accepted items are done; failed ones are reported with their own error
   * code, grouped by code. Without results, `error` (if any) applies to the whole batch.
   */
  private settleResults(batch: Queued[], results: WireItemResult[] | undefined, error: TrackingError | undefined) {
    if (!results || results.length !== batch.length) {
      if (error) {
        this.counts.failed += batch.length
        this.report(error, batch)
      } else this.counts.delivered += batch.length
      return
    }
    const failed = new Map<string, { message: string; items: Queued[] }>()
    for (const r of results) {
      const q = batch[r.index]
      if (!q) continue
      if (r.success) {
        this.counts.delivered++
        continue
      }
      const code = r.error?.code ?? error?.code ?? 'UNEXPECTED_RESPONSE'
      const f = failed.get(code) ?? { message: r.error?.message ?? error?.message ?? 'item rejected', items: [] }
      f.items.push(q)
      failed.set(code, f)
    }
    for (const [code, f] of failed) {
      this.counts.failed += f.items.length
      this.report(
        new TrackingError(code, f.message, { status: error?.status ?? 200, details: error?.details }),
        f.items,
      )
    }
  }

  private report(error: TrackingError, items: Queued[]) {
    try {
      this.onError(
        error,
        items.map((q) => q.item),
      )
    } catch {
      /* a throwing callback must not stop delivery */
    }
  }

  /**
   * Page hidden or left: send what is queued now with keepalive fetch, which the browser completes
   * after the page is gone, within its 64 KiB budget for such bodies. sendBeacon is not used: it
   * cannot send the Authorization header the API requires. Items over the budget stay queued and
   * go out if the page comes back.
   */
  private sendOnPageHide() {
    this.drainUpTo = Math.max(this.drainUpTo, this.seq)
    // Ordinary requests under way (or waiting to retry) may die with the page: send each once more
    // with keepalive, oldest first. The API stores a message_id once (H16), so a batch that arrives
    // twice is stored once; the original request still decides the batch's outcome.
    for (const batch of this.inFlight) {
      if (this.keepaliveSent.has(batch)) continue
      const size = bodyBytes(batch.map((q) => q.bytes))
      if (size > KEEPALIVE_BUDGET_BYTES - this.keepaliveInFlight) continue
      this.keepaliveSent.add(batch)
      this.keepaliveInFlight += size
      this.counts.requests++
      void post({
        url: this.url,
        apiKey: this.apiKey,
        body: batchBody(batch, new Date()),
        gzip: false,
        keepalive: true,
        timeoutMs: this.requestTimeout,
        fetch: this.fetchFn,
        stop: this.stop.signal,
      }).finally(() => (this.keepaliveInFlight -= size))
    }
    while (this.queue.length > 0) {
      const budget = KEEPALIVE_BUDGET_BYTES - this.keepaliveInFlight
      const { count } = takeCount(this.queue, this.flushAt, Math.min(this.maxBatchBytes, budget))
      const size = bodyBytes(this.queue.slice(0, count).map((q) => q.bytes))
      if (size > budget) break
      const batch = this.queue.splice(0, count)
      this.inFlight.add(batch)
      this.keepaliveSent.add(batch)
      this.keepaliveInFlight += size
      void this.deliver(batch, true).finally(() => {
        this.keepaliveInFlight -= size
        this.inFlight.delete(batch)
        this.afterSettle()
      })
    }
  }
}

function intOption(name: string, v: number | undefined, def: number, min: number, max: number): number {
  if (v === undefined) return def
  if (!Number.isInteger(v) || v < min || v > max)
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${v}`)
  return v
}

function defaultOnError(error: TrackingError, items: readonly WireItem[]) {
  console.warn(`[${SDK_NAME}] ${items.length} item(s) not stored: ${error.code}: ${error.message}`)
}
