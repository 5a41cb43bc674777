// The live stream for the browser: proxies the projector's SSE feed (GET /live with the LIVE_TOKEN)
// for the signed-in account only. The account id comes from the session, never from the request;
// the filters the browser may pass are forwarded as query values. The projector's refusals at its
// stream caps (U3) reach the browser as they are: 429 or 503, with Retry-After.
import { Readable } from 'node:stream'
import type { ServerResponse } from 'node:http'
import type { Logger } from '../../../shared/src/log.js'
import { tooManyStreams, unavailable } from '../errors.js'

export interface LiveFilters {
  event?: string
  userId?: string
  environment?: 'live' | 'test'
}

export async function openLiveFeed(opts: {
  projectorUrl: string
  liveToken: string
  accountId: string
  filters: LiveFilters
  signal: AbortSignal
}): Promise<Response> {
  const u = new URL('/live', opts.projectorUrl)
  u.searchParams.set('account_id', opts.accountId)
  if (opts.filters.event) u.searchParams.set('event', opts.filters.event)
  if (opts.filters.userId) u.searchParams.set('user_id', opts.filters.userId)
  if (opts.filters.environment) u.searchParams.set('environment', opts.filters.environment)
  let res: Response
  try {
    res = await fetch(u, {
      headers: { authorization: `Bearer ${opts.liveToken}`, accept: 'text/event-stream' },
      signal: opts.signal,
    })
  } catch (err) {
    throw unavailable('The live feed', err)
  }
  if (res.status === 200 && res.body) return res
  await res.body?.cancel().catch(() => undefined)
  const retryAfter = Math.max(1, Number(res.headers.get('retry-after')) || 5)
  if (res.status === 429) throw tooManyStreams(retryAfter, 'this account')
  if (res.status === 503) throw unavailable('The live feed (at its stream limit)', undefined, retryAfter)
  throw unavailable(
    `The live feed (projector answered ${res.status}; is LIVE_TOKEN the same for projector and dashboard?)`,
  )
}

/**
 * Streams `upstream` to `res` until either side closes, the browser stops reading (the projector
 * then cuts the upstream, U3) or `signedIn()` turns false: every chunk is checked before it is
 * sent, so nothing reaches a browser after its session ended (U4). Returns the function that ends
 * the stream; `onEnd` runs once, however it ended.
 */
export function pipeSse(
  upstream: Response,
  res: ServerResponse,
  o: { abort: AbortController; log: Logger; signedIn: () => boolean; onEnd: () => void },
): () => void {
  let ended = false
  const body = Readable.fromWeb(upstream.body as any)
  const end = () => {
    if (ended) return
    ended = true
    o.onEnd()
    o.abort.abort()
    body.destroy()
    // Destroyed, not ended: an end() would wait for a browser that may not be reading.
    res.destroy()
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  res.flushHeaders()
  body.on('data', (chunk: Buffer) => {
    if (ended) return
    if (!o.signedIn()) return end()
    if (!res.write(chunk)) body.pause()
  })
  res.on('drain', () => body.resume())
  body.on('error', (err) => {
    if (!o.abort.signal.aborted) o.log.debug('live feed upstream ended', { err })
    end()
  })
  body.on('end', end)
  res.on('error', end)
  res.on('close', end)
  return end
}
