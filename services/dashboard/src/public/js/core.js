// The dashboard's shared helpers: elements, the API client, the hash router's state and the page frame.
// Every value from the server is put in the page with textContent (never innerHTML), so event names,
// user ids and traits cannot inject markup.

/**
 * An event or identify as the dashboard API and the live feed carry it (docs/api.md, the dashboard's routes).
 * @typedef {{ type?: string, event_id: string, event?: string, user_id: string, environment: string,
 *   timestamp: string, received_at?: string, properties?: unknown, traits?: unknown, context?: unknown }} EventItem
 */
/** The signed-in user (GET /api/me). @typedef {{ account_id: string, email?: string, plan: string, ingest_url?: string }} Me */
/** Attributes of h(): properties, attributes, and `on<event>` listeners. @typedef {Record<string, any>} Attrs */

/**
 * The element of the page matched by `sel` (every caller looks up one the page has).
 * @param {string} sel
 * @param {ParentNode} [root]
 * @returns {HTMLElement}
 */
export const $ = (sel, root = document) => /** @type {HTMLElement} */ (root.querySelector(sel))
export const main = () => $('#main')

/**
 * Builds an element; text is always a text node (never markup).
 * @overload
 * @param {'svg' | 'rect' | 'text' | 'line' | 'g' | 'title'} tag
 * @param {Attrs} [attrs]
 * @param {...any} children
 * @returns {SVGElement}
 */
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @overload
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
/**
 * @param {any} tag
 * @param {Attrs} [attrs]
 * @param {...any} children
 * @returns {any}
 */
export function h(tag, attrs = {}, ...children) {
  const svg = ['svg', 'rect', 'text', 'line', 'g', 'title'].includes(tag)
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else if (k === 'class') el.setAttribute('class', v)
    else if (k in el && !svg && k !== 'list') /** @type {any} */ (el)[k] = v
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false)
      el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  return el
}

/**
 * A titled panel, the dashboard's card: its h2 (text, a node, or several) and then its children.
 * @param {any} title
 * @param {...any} children
 * @returns {HTMLDivElement}
 */
export function panel(title, ...children) {
  return h('div', { class: 'panel' }, h('h2', {}, title), ...children)
}

/** @param {string} name */
export function cookie(name) {
  const m = document.cookie.split('; ').find((c) => c.startsWith(name + '='))
  return m ? decodeURIComponent(m.slice(name.length + 1)) : ''
}

export class ApiError extends Error {
  /** @param {number} status @param {any} body the JSON error answer (docs/api.md), or null */
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`)
    this.status = status
    this.code = body?.error?.code
  }
}

/**
 * Calls the dashboard API; resolves to the answer's `data`, throws ApiError.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' }
  if (method !== 'GET') {
    headers['content-type'] = 'application/json'
    headers['x-csrf-token'] = cookie('__Host-dash_csrf') || cookie('dash_csrf')
  }
  const res = await fetch('/api' + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  })
  const json = await res.json().catch(() => null)
  if (!res.ok) {
    if (res.status === 401 && !['/signin', '/signup', '/me'].includes(path)) {
      if (state.me)
        state.notice =
          'Your session has ended (signed out on another device, password changed, or expired). Sign in again.'
      state.me = null
      showNav()
      go('#/signin')
    }
    throw new ApiError(res.status, json)
  }
  return json.data
}

/** @param {string | undefined | null} iso */
export const fmtTime = (iso) => (iso ? new Date(iso).toLocaleString() : '—')
/** @param {number | string} n */
export const fmtNum = (n) => Number(n).toLocaleString()
/** @param {Record<string, string | undefined>} o */
export const qs = (o) => {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(o)) if (v) p.set(k, v)
  const s = p.toString()
  return s ? '?' + s : ''
}
/** @param {any} err */
export const errorBox = (err) => h('p', { class: 'error', role: 'alert' }, err.message || String(err))

/** @type {{ me: Me | null, cleanup: (() => void)[], notice: string }} */
export const state = { me: null, cleanup: [], notice: '' }

// The router (app.js) registers itself here: pages and the API client navigate with go() without
// importing app.js, which imports them.
/** @type {() => unknown} */
let router = () => undefined
/** @param {() => unknown} fn */
export function setRouter(fn) {
  router = fn
}

/** @param {string} hash */
export function go(hash) {
  if (location.hash !== hash) location.hash = hash
  else void router()
}

// A page's filters live in the hash after `?` (#/explorer?event=signup), so a view can be shared
// and survives a reload; replaceState changes the address without routing again.
export function hashRoute() {
  const [path, query = ''] = location.hash.split('?')
  const [, page = '', arg] = path.split('/')
  return { page, arg, params: new URLSearchParams(query) }
}
/** @param {Record<string, string | undefined>} values */
export function setHashParams(values) {
  const { page } = hashRoute()
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(values)) if (v) p.set(k, v)
  const q = p.toString()
  history.replaceState(null, '', `#/${page}${q ? '?' + q : ''}`)
}

export function showNav() {
  $('#nav').hidden = !state.me
  $('#who').hidden = !state.me
  if (state.me) {
    $('#who-email').textContent = state.me.email || state.me.account_id
    $('#who-plan').textContent = state.me.plan
  }
  const { page } = hashRoute()
  for (const a of document.querySelectorAll('#nav a'))
    a.classList.toggle('active', /** @type {HTMLElement} */ (a).dataset.page === page)
}

/** @param {...(Node | Node[])} nodes */
export function render(...nodes) {
  main().replaceChildren(...nodes.flat())
}

// Routes are async: a page still loading when the user moves on (or signs out) must not draw over
// the page that replaced it, neither its content nor the error its late answer brings (a 401 once
// signed out).
let routeSeq = 0
export function stillCurrent() {
  const seq = routeSeq
  return () => seq === routeSeq
}
/** Called by the router as a new page starts: whatever the previous page still awaits is no longer current. */
export function nextRoute() {
  routeSeq++
  return stillCurrent()
}

/** @param {string | undefined} name */
export function setTitle(name) {
  document.title = name ? `${name} · Event tracking` : 'Event tracking dashboard'
}
