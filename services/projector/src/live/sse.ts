// Server-sent events for the live feed: GET /live?account_id=..., for the dashboard's server only,
// authenticated with the LIVE_TOKEN service secret. API keys are never accepted here: they are
// ingest credentials, and client-side keys ship inside browser and mobile apps, so a key must not
// read any end user's data (issue 12). The dashboard proxies this feed for a signed-in account,
// taking the account id from the session. Optional filters: event, user_id, environment.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import type { LiveHub, LiveItem, Subscriber } from './live-hub.js'

export interface LiveAuth {
  /** The dashboard's service secret; empty turns the live feed off. */
  liveToken: string
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function refuse(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { 'content-type': 'application/json', ...(status === 401 ? { 'www-authenticate': 'Bearer realm="live"' } : {}) })
  res.end(JSON.stringify({ success: false, error: { code, message } }))
}

export function handleLive(req: IncomingMessage, res: ServerResponse, url: URL, hub: LiveHub, auth: LiveAuth, bufferItems: number) {
  const header = req.headers.authorization ?? ''
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]
  if (!bearer || !auth.liveToken || !safeEqual(bearer, auth.liveToken)) {
    return refuse(res, 401, 'UNAUTHORIZED', 'The live feed is read through the dashboard; API keys cannot read data')
  }
  const accountId = url.searchParams.get('account_id')
  if (!accountId) return refuse(res, 400, 'VALIDATION_ERROR', 'account_id is required')
  const f = {
    event: url.searchParams.get('event') || undefined,
    user: url.searchParams.get('user_id') || undefined,
    env: url.searchParams.get('environment') || undefined,
  }
  const keep = (i: LiveItem) => (!f.event || i.event === f.event) && (!f.user || i.user_id === f.user) && (!f.env || i.environment === f.env)

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  res.write(`retry: 2000\n: connected to the live feed of ${accountId}\n\n`)
  let queued = 0
  const sub: Subscriber = {
    accountId,
    push(items) {
      const mine = items.filter(keep)
      if (mine.length === 0) return true
      // writableLength is what the socket has not taken yet: our bounded buffer.
      if (res.writableLength > bufferItems * 1024 || queued > bufferItems) return false
      for (const item of mine) {
        const ok = res.write(`id: ${item.event_id}\nevent: ${item.type}\ndata: ${JSON.stringify(item)}\n\n`)
        if (!ok) queued++
      }
      return true
    },
    close(reason) {
      res.write(`event: dropped\ndata: ${JSON.stringify({ reason })}\n\n`)
      res.end()
    },
  }
  res.on('drain', () => (queued = 0))
  const unsubscribe = hub.subscribe(sub)
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000)
  const end = () => {
    clearInterval(ping)
    unsubscribe()
  }
  req.on('close', end)
  res.on('close', end)
}
