// One POST /v1/events attempt, and what its answer means for the batch: stored, retry, or failed
// for good. classify() is pure and unit-tested; post() is the only code that touches the network.
import { TrackingError } from './errors.js'
import { FINAL_429_CODES, isRetriableStatus, serverDelay } from './retry.js'
import { canGzip, gzip } from './platform.js'
import type { WireErrorBody, WireItemResult } from './wire.js'

export type Outcome =
  /** 200: the batch was taken; `results` say which items were accepted (H11). */
  | { kind: 'ok'; results: WireItemResult[] | undefined }
  /** Transient: try again later with the same items and message_ids. */
  | { kind: 'retry'; error: TrackingError; serverDelayMs?: number }
  /** Final: report and drop. `results`, when the API gave them, tell the error of each item. */
  | { kind: 'fail'; error: TrackingError; results?: WireItemResult[] }

export interface Answer {
  status: number
  header: (name: string) => string | null
  body: unknown
}

export function classify(a: Answer, nowMs: number): Outcome {
  const body = a.body as Partial<WireErrorBody> & { data?: { results?: unknown } }
  if (a.status >= 200 && a.status < 300) {
    const results = Array.isArray(body?.data?.results) ? (body.data!.results as WireItemResult[]) : undefined
    return { kind: 'ok', results }
  }
  const apiError =
    body && typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : undefined
  const code = apiError?.code ?? (a.status >= 500 ? 'SERVER_ERROR' : 'UNEXPECTED_RESPONSE')
  const message = apiError?.message ?? `HTTP ${a.status}`
  const details = apiError?.details
  const retriable = isRetriableStatus(a.status) && !(a.status === 429 && FINAL_429_CODES.has(code))
  const error = new TrackingError(code, message, { status: a.status, retriable, details })
  if (retriable) return { kind: 'retry', error, serverDelayMs: serverDelay(a.status, a.header, nowMs) }
  const results = Array.isArray(details?.results) ? details!.results : undefined
  return { kind: 'fail', error, results }
}

export interface PostRequest {
  url: string
  apiKey: string
  body: string
  gzip: boolean
  /** Browsers: let the request outlive the page (page hide); implies no gzip, so it starts at once. */
  keepalive: boolean
  timeoutMs: number
  fetch: typeof fetch
  /** Aborts the attempt from outside (shutdown gave up). */
  stop?: AbortSignal
}

/** Bodies smaller than this are sent as they are: gzip would save nothing worth its time. */
export const GZIP_MIN_BYTES = 1024

/** Sends one attempt; a network failure or timeout comes back as a retriable NETWORK_ERROR outcome. */
export async function post(r: PostRequest): Promise<Outcome> {
  const headers: Record<string, string> = { authorization: `Bearer ${r.apiKey}`, 'content-type': 'application/json' }
  let body: string | Uint8Array = r.body
  if (r.gzip && !r.keepalive && canGzip && r.body.length >= GZIP_MIN_BYTES) {
    body = await gzip(r.body)
    headers['content-encoding'] = 'gzip'
  }
  const ac = new AbortController()
  const timer = setTimeout(() => ac.abort(new Error(`no answer within ${r.timeoutMs} ms`)), r.timeoutMs)
  const onStop = () => {
    clearTimeout(timer)
    ac.abort(new Error('the client was shut down'))
  }
  r.stop?.addEventListener('abort', onStop)
  try {
    const res = await r.fetch(r.url, {
      method: 'POST',
      headers,
      body: body as BodyInit,
      keepalive: r.keepalive,
      signal: ac.signal,
    })
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return classify({ status: res.status, header: (n) => res.headers.get(n), body: parsed }, Date.now())
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err)
    return {
      kind: 'retry',
      error: new TrackingError('NETWORK_ERROR', `request to ${r.url} failed: ${why}`, { retriable: true, cause: err }),
    }
  } finally {
    clearTimeout(timer)
    r.stop?.removeEventListener('abort', onStop)
  }
}
