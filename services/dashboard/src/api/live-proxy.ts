// The live stream for the browser: proxies the projector's SSE feed (GET /live with the LIVE_TOKEN)
// for the signed-in account only. The account id comes from the session, never from the request;
// the filters the browser may pass are forwarded as query values.
import { Readable } from 'node:stream'
import type { ServerResponse } from 'node:http'
import type { Logger } from '../../../shared/src/log.js'
import { unavailable } from '../errors.js'

export interface LiveFilters {
  event?: string
  userId?: string
  environment?: 'live' | 'test'
}

export async function openLiveFeed(opts: { projectorUrl: string; liveToken: string; accountId: string; filters: LiveFilters; signal: AbortSignal }): Promise<Response> {
  const u = new URL('/live', opts.projectorUrl)
  u.searchParams.set('account_id', opts.accountId)
  if (opts.filters.event) u.searchParams.set('event', opts.filters.event)
  if (opts.filters.userId) u.searchParams.set('user_id', opts.filters.userId)
  if (opts.filters.environment) u.searchParams.set('environment', opts.filters.environment)
  let res: Response
  try {
    res = await fetch(u, { headers: { authorization: `Bearer ${opts.liveToken}`, accept: 'text/event-stream' }, signal: opts.signal })
  } catch (err) {
    throw unavailable('The live feed', err)
  }
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel().catch(() => undefined)
    throw unavailable(`The live feed (projector answered ${res.status}; is LIVE_TOKEN the same for projector and dashboard?)`)
  }
  return res
}

/** Streams `upstream` to `res` until either side closes. */
export function pipeSse(upstream: Response, res: ServerResponse, abort: AbortController, log: Logger): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  res.flushHeaders()
  const body = Readable.fromWeb(upstream.body as any)
  body.on('error', (err) => {
    if (!abort.signal.aborted) log.debug('live feed upstream ended', { err })
    res.end()
  })
  body.pipe(res)
  res.on('close', () => {
    abort.abort()
    body.destroy()
  })
}
