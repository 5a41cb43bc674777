// Server-sent events for the live feed: GET /live?account_id=..., for the dashboard's server only,
// authenticated with the LIVE_TOKEN service secret. API keys are never accepted here: they are
// ingest credentials, and client-side keys ship inside browser and mobile apps, so a key must not
// read any end user's data. The dashboard proxies this feed for a signed-in account,
// taking the account id from the session. Optional filters: event, user_id, environment.
//
// A stream that holds more than `bufferBytes` its client has not taken is cut off (U3): the socket
// is destroyed rather than ended (an end() waits for a client that does not read), its ping timer
// is cleared, and nothing is written to it again; errors on either side only end the stream.
import { errorAnswer, sendAnswer } from '../../../shared/src/http/index.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import type { LiveHub, LiveItem, Subscriber } from './live-hub.js'
import { realTimers, type Timers } from '../../../shared/src/timers.js'

export interface LiveAuth {
  /** The dashboard's service secret; empty turns the live feed off. */
  liveToken: string
}

export interface LiveStreamOptions {
  /** Bytes a stream may hold unsent before it is cut off (LIVE_BUFFER_BYTES). */
  bufferBytes: number
  /** A comment line this often keeps proxies from closing an idle stream. */
  pingMs: number
  /** The pings' timers; tests pass manual ones. Default: Node's. */
  timers?: Timers
}

export const DEFAULT_LIVE_STREAM: LiveStreamOptions = { bufferBytes: 1024 * 1024, pingMs: 15_000 }

/** Seconds a refused stream is told to wait (429 at the account's cap, 503 at the total). */
export const LIVE_RETRY_AFTER_S = 5

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A refused stream, in the error shape every service answers (H62). */
function refuse(res: ServerResponse, status: number, code: string, message: string) {
  const headers = {
    ...(status === 401 ? { 'WWW-Authenticate': 'Bearer realm="live"' } : {}),
    ...(status === 429 || status === 503 ? { 'Retry-After': String(LIVE_RETRY_AFTER_S) } : {}),
  }
  sendAnswer(res, errorAnswer({ status, code, message, headers }))
}

export function handleLive(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  hub: LiveHub,
  auth: LiveAuth,
  opts: LiveStreamOptions = DEFAULT_LIVE_STREAM,
) {
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
  const keep = (i: LiveItem) =>
    (!f.event || i.event === f.event) && (!f.user || i.user_id === f.user) && (!f.env || i.environment === f.env)

  let ended = false
  const timers = opts.timers ?? realTimers
  let ping: unknown
  let unsubscribe = () => {}
  const send = (chunk: string | Buffer) => {
    if (!ended && !res.destroyed && !res.writableEnded) res.write(chunk)
  }
  const cut = () => {
    if (ended) return
    ended = true
    timers.clearTimeout(ping)
    unsubscribe()
    res.destroy()
  }
  const sub: Subscriber = {
    accountId,
    push(frames) {
      if (ended) return true
      // writableLength is what the client has not taken yet: past the bound, it is behind for good.
      if (res.writableLength > opts.bufferBytes) return false
      for (const fr of frames) if (keep(fr.item)) send(fr.frame)
      return true
    },
    close(reason) {
      send(`event: dropped\ndata: ${JSON.stringify({ reason })}\n\n`)
      cut()
    },
  }
  const admission = hub.subscribe(sub)
  if (!admission.ok) {
    return admission.cap === 'account'
      ? refuse(
          res,
          429,
          'TOO_MANY_STREAMS',
          'This account has as many live streams open as it may; close one or try again later',
        )
      : refuse(res, 503, 'SERVICE_UNAVAILABLE', 'The live feed is at its stream limit; try again later')
  }
  unsubscribe = admission.unsubscribe
  req.on('error', cut)
  res.on('error', cut)
  res.on('close', cut)
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  send(`retry: 2000\n: connected to the live feed of ${accountId}\n\n`)
  const pingLater = () => {
    ping = timers.setTimeout(() => {
      send(': ping\n\n')
      if (!ended) pingLater()
    }, opts.pingMs)
  }
  pingLater()
}
