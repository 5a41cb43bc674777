// Server-sent events for the live feed: GET /live, authenticated either with an API key
// (Authorization: Bearer svc_..., the key's account) or, for the dashboard's server, with the
// LIVE_TOKEN and an account_id. Optional filters: event, user_id, environment.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import type { LiveHub, LiveItem, Subscriber } from './live-hub.js'

export interface LiveAuth {
  /** Resolves an API key to its account id, or undefined. */
  accountForKey(key: string): string | undefined
  liveToken: string
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export function handleLive(req: IncomingMessage, res: ServerResponse, url: URL, hub: LiveHub, auth: LiveAuth, bufferItems: number) {
  const header = req.headers.authorization ?? ''
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]
  let accountId: string | undefined
  if (bearer && auth.liveToken && safeEqual(bearer, auth.liveToken)) accountId = url.searchParams.get('account_id') ?? undefined
  else if (bearer) accountId = auth.accountForKey(bearer)
  if (!accountId) {
    res.writeHead(401, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ success: false, error: { code: 'INVALID_API_KEY', message: 'Invalid or inactive key for the live feed' } }))
    return
  }
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
