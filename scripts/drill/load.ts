// The drill's steady load: single events on /v1/event at a fixed rate plus small batches on
// /v1/events, each event with a unique message_id. Every answer is kept (status, Retry-After, the
// event_ids of a 2xx) so reconciliation can check each acknowledged id and attribute it to a fault.
import { classifyAnswer, type Outcome } from './report.js'

export interface LoadSettings {
  ingestUrl: string
  key: string
  runId: string
  rate: number
  batchRate: number
  batchSize: number
  /** A request still unanswered after this is abandoned (its outcome unknown, so never acked). */
  timeoutMs: number
  /** Requests in flight beyond this are not sent (counted in `skipped`), so a stalled ingest cannot exhaust the drill. */
  maxInFlight: number
}

export class SteadyLoad {
  readonly outcomes: Outcome[] = []
  skipped = 0
  private inFlight = new Set<Promise<void>>()
  private timer?: NodeJS.Timeout
  private singles = 0
  private batches = 0
  private startedAt = 0

  constructor(private readonly s: LoadSettings) {}

  start(): void {
    this.startedAt = Date.now()
    // A 10 ms tick sends whatever is due, so the rate holds even when a tick is late.
    this.timer = setInterval(() => this.tick(), 10)
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await Promise.all(this.inFlight)
  }

  /** Sends single events, one at a time, until one is answered 2xx (the key has reached ingest). */
  async untilAccepted(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs
    let last = ''
    while (Date.now() < end) {
      const o = await this.send(this.singleBody())
      if (o.status === 200 && o.events[0]?.eventId) return
      last = o.status ? `status ${o.status}` : `${o.error}`
      await new Promise((r) => setTimeout(r, 250))
    }
    throw new Error(`ingest did not accept the drill's events within ${timeoutMs} ms (last: ${last})`)
  }

  private tick(): void {
    const elapsed = (Date.now() - this.startedAt) / 1000
    const dueSingles = Math.floor(elapsed * this.s.rate) - this.singles
    const dueBatches = Math.floor(elapsed * this.s.batchRate) - this.batches
    // After a long pause of the drill's own loop, send at most a second's worth at once.
    for (let i = 0; i < Math.min(dueSingles, this.s.rate); i++) this.fire(this.singleBody())
    for (let i = 0; i < Math.min(dueBatches, Math.max(1, this.s.batchRate)); i++) this.fire(this.batchBody())
    this.singles += Math.max(0, dueSingles)
    this.batches += Math.max(0, dueBatches)
  }

  private fire(req: Request): void {
    if (this.inFlight.size >= this.s.maxInFlight) {
      this.skipped++
      return
    }
    const p = this.send(req).then(() => undefined)
    this.inFlight.add(p)
    void p.finally(() => this.inFlight.delete(p))
  }

  private n = 0
  private singleBody(): Request {
    const seq = ++this.n
    const messageId = `${this.s.runId}-s${seq}`
    return {
      path: '/v1/event',
      messageIds: [messageId],
      body: { event: 'drill_tick', message_id: messageId, user: { id: `drill_user_${seq % 97}` }, properties: { seq } },
    }
  }

  private batchBody(): Request {
    const seq = ++this.n
    const messageIds = Array.from({ length: this.s.batchSize }, (_, i) => `${this.s.runId}-b${seq}-${i}`)
    return {
      path: '/v1/events',
      messageIds,
      body: {
        sent_at: new Date().toISOString(),
        // Different users, so the batch spans partitions (the transactional path, A4).
        events: messageIds.map((m, i) => ({
          type: 'event',
          event: 'drill_batch_item',
          message_id: m,
          user: { id: `drill_user_${(seq + i) % 97}` },
          properties: { seq, i },
        })),
      },
    }
  }

  private async send(req: Request): Promise<Outcome> {
    const sentAt = Date.now()
    const o: Outcome = { sentAt, doneAt: sentAt, events: req.messageIds.map((messageId) => ({ messageId })) }
    try {
      const res = await fetch(this.s.ingestUrl + req.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.s.key}` },
        body: JSON.stringify(req.body),
        signal: AbortSignal.timeout(this.s.timeoutMs),
      })
      const text = await res.text()
      o.status = res.status
      o.retryAfter = res.headers.get('retry-after')
      o.bad = classifyAnswer(res.status, o.retryAfter)
      if (res.status >= 200 && res.status < 300) readEventIds(text, o)
    } catch (err) {
      const name = (err as Error)?.name
      o.error = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'connection'
    }
    o.doneAt = Date.now()
    this.outcomes.push(o)
    return o
  }
}

interface Request {
  path: string
  messageIds: string[]
  body: unknown
}

/** Reads `data.results[i].event_id` of a 2xx; a 2xx that does not name an id for every item breaks H12. */
function readEventIds(text: string, o: Outcome): void {
  let results: Array<{ index?: number; success?: boolean; event_id?: string }> | undefined
  try {
    results = JSON.parse(text)?.data?.results
  } catch {
    // handled below
  }
  if (!Array.isArray(results)) {
    o.bad = `2xx without data.results: ${text.slice(0, 120)}`
    return
  }
  results.forEach((r, i) => {
    const item = o.events[r.index ?? i]
    if (item && r.success !== false && typeof r.event_id === 'string') item.eventId = r.event_id
  })
  if (o.events.some((e) => !e.eventId) && results.every((r) => r.success !== false))
    o.bad = '2xx with an accepted item lacking its event_id'
}
