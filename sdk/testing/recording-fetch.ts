// A fetch that passes every request on to the real one (real ingest, real network) and records
// what went over the wire, so tests can look at batch sizes, bodies and answers.
import { gunzipSync } from 'node:zlib'

export interface Exchange {
  at: number
  /** Items in the request body. */
  items: number
  /** Size of the JSON body after decompression, as the API measures it (H7). */
  bytes: number
  gzipped: boolean
  status: number | 'network-error'
  retryAfter: string | null
  code?: string
  messageIds: string[]
  /** UTF-8 size of each item's JSON. */
  itemBytes: number[]
}

export function recordingFetch(): { fetch: typeof fetch; log: Exchange[] } {
  const log: Exchange[] = []
  const f = async (input: string | URL | Request, init: RequestInit = {}) => {
    const raw = init.body instanceof Uint8Array ? Buffer.from(init.body) : Buffer.from(String(init.body))
    const headers = new Headers(init.headers)
    const gzipped = headers.get('content-encoding') === 'gzip'
    const json = gzipped ? gunzipSync(raw) : raw
    const body = JSON.parse(json.toString('utf8')) as { events: Array<{ message_id: string }> }
    const e: Exchange = {
      at: Date.now(),
      items: body.events.length,
      bytes: json.length,
      gzipped,
      status: 'network-error',
      retryAfter: null,
      messageIds: body.events.map((x) => x.message_id),
      itemBytes: body.events.map((x) => Buffer.byteLength(JSON.stringify(x))),
    }
    log.push(e)
    const res = await fetch(input, init)
    e.status = res.status
    e.retryAfter = res.headers.get('retry-after')
    if (res.status !== 200) {
      try {
        e.code = (await res.clone().json()).error?.code
      } catch {
        /* not JSON */
      }
    }
    return res
  }
  return { fetch: f as typeof fetch, log }
}
