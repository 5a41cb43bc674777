// What differs between Node and browsers, found by feature detection so one build runs in both:
// ids, gzip, page-hide hooks, browser context. Nothing here touches Node modules.

type AnyGlobal = typeof globalThis & {
  document?: Document
  window?: Window
  localStorage?: Storage
  process?: { versions?: { node?: string } }
}
const g = globalThis as AnyGlobal

export const isBrowser = typeof g.window !== 'undefined' && typeof g.document !== 'undefined'

/** A random UUIDv4. crypto.randomUUID needs a secure context in browsers; getRandomValues does not. */
export function randomId(): string {
  const c = g.crypto
  if (c && typeof c.randomUUID === 'function') {
    try {
      return c.randomUUID()
    } catch {
      /* not a secure context */
    }
  }
  const b = new Uint8Array(16)
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(b)
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256)
  b[6] = (b[6] & 0x0f) | 0x40
  b[8] = (b[8] & 0x3f) | 0x80
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

export const canGzip = typeof g.CompressionStream === 'function'

/** gzip of a text (the API inflates `Content-Encoding: gzip`, H7). */
export async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'))
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

/**
 * Calls `fn` when the page is hidden or unloaded (tab switched, closed, navigated away): the last
 * moment a browser reliably runs code. Returns a function that removes the listeners.
 */
export function onPageHide(fn: () => void): () => void {
  if (!isBrowser) return () => undefined
  const doc = g.document!
  const win = g.window!
  const onVisibility = () => {
    if (doc.visibilityState === 'hidden') fn()
  }
  doc.addEventListener('visibilitychange', onVisibility)
  win.addEventListener('pagehide', fn)
  return () => {
    doc.removeEventListener('visibilitychange', onVisibility)
    win.removeEventListener('pagehide', fn)
  }
}

/** Context a browser can tell about itself (docs/api.md Client libraries); the server adds IP and User-Agent. */
export function browserContext(): Record<string, unknown> {
  if (!isBrowser) return {}
  const out: Record<string, unknown> = { platform: 'web' }
  try {
    const nav = g.navigator
    if (nav?.language) out.locale = nav.language
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone
    if (tz) out.timezone = tz
    const s = g.window!.screen
    if (s) out.screen_size = `${s.width}x${s.height}`
    const loc = g.window!.location
    out.page = {
      url: loc.href,
      path: loc.pathname,
      referrer: g.document!.referrer || undefined,
      title: g.document!.title || undefined,
    }
  } catch {
    /* context is best effort */
  }
  return out
}

const ANON_KEY = 'et_anonymous_id'

/** A browser's anonymous user id, kept in localStorage so it survives reloads. */
export function anonymousId(): string {
  let id: string | null = null
  try {
    id = g.localStorage?.getItem(ANON_KEY) ?? null
  } catch {
    /* storage blocked */
  }
  if (id) return id
  id = `anon_${randomId()}`
  try {
    g.localStorage?.setItem(ANON_KEY, id)
  } catch {
    /* storage blocked: the id lives as long as the page */
  }
  return id
}
