// The dashboard front end: plain JS, no build step. Every value from the server is put in the page
// with textContent (never innerHTML), so event names, user ids and traits cannot inject markup.
'use strict'

const $ = (sel, root = document) => root.querySelector(sel)
const main = () => $('#main')

function h(tag, attrs = {}, ...children) {
  const svg = ['svg', 'rect', 'text', 'line', 'g', 'title'].includes(tag)
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else if (k === 'class') el.setAttribute('class', v)
    else if (k in el && !svg && k !== 'list') el[k] = v
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false)
      el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  return el
}

function cookie(name) {
  const m = document.cookie.split('; ').find((c) => c.startsWith(name + '='))
  return m ? decodeURIComponent(m.slice(name.length + 1)) : ''
}

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`)
    this.status = status
    this.code = body?.error?.code
  }
}

async function api(method, path, body) {
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

const fmtTime = (iso) => (iso ? new Date(iso).toLocaleString() : '—')
const fmtNum = (n) => Number(n).toLocaleString()
const qs = (o) => {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(o)) if (v) p.set(k, v)
  const s = p.toString()
  return s ? '?' + s : ''
}
const errorBox = (err) => h('p', { class: 'error', role: 'alert' }, err.message || String(err))

const state = { me: null, cleanup: [], notice: '' }

function go(hash) {
  if (location.hash !== hash) location.hash = hash
  else void route()
}

// A page's filters live in the hash after `?` (#/explorer?event=signup), so a view can be shared
// and survives a reload; replaceState changes the address without routing again.
function hashRoute() {
  const [path, query = ''] = location.hash.split('?')
  const [, page = '', arg] = path.split('/')
  return { page, arg, params: new URLSearchParams(query) }
}
function setHashParams(values) {
  const { page } = hashRoute()
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(values)) if (v) p.set(k, v)
  const q = p.toString()
  history.replaceState(null, '', `#/${page}${q ? '?' + q : ''}`)
}

const TITLES = {
  signin: 'Sign in',
  signup: 'Create your account',
  keys: 'API keys',
  usage: 'Usage',
  explorer: 'Explorer',
  definitions: 'Definitions',
  live: 'Live stream',
  account: 'Account',
}
function setTitle(page, arg) {
  const name = page === 'users' ? `User ${decodeURIComponent(arg || '')}` : TITLES[page]
  document.title = name ? `${name} · Event tracking` : 'Event tracking dashboard'
}

function showNav() {
  $('#nav').hidden = !state.me
  $('#who').hidden = !state.me
  if (state.me) {
    $('#who-email').textContent = state.me.email || state.me.account_id
    $('#who-plan').textContent = state.me.plan
  }
  const { page } = hashRoute()
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.page === page)
}

function render(...nodes) {
  main().replaceChildren(...nodes.flat())
}

// Routes are async: a page still loading when the user moves on (or signs out) must not draw over
// the page that replaced it, neither its content nor the error its late answer brings (a 401 once
// signed out).
let routeSeq = 0
function stillCurrent() {
  const seq = routeSeq
  return () => seq === routeSeq
}

async function route() {
  routeSeq++
  const current = stillCurrent()
  for (const fn of state.cleanup.splice(0)) fn()
  closeDetail()
  const { page, arg } = hashRoute()
  setTitle(page, arg)
  if (!state.me && page !== 'signin' && page !== 'signup') {
    try {
      state.me = await api('GET', '/me')
    } catch {
      return go('#/signin')
    }
  }
  showNav()
  try {
    switch (page) {
      case 'signin':
        return authPage('signin')
      case 'signup':
        return authPage('signup')
      case 'keys':
        return await keysPage()
      case 'usage':
        return await usagePage()
      case 'explorer':
        return await explorerPage()
      case 'definitions':
        return await definitionsPage()
      case 'users':
        return await userPage(decodeURIComponent(arg || ''))
      case 'live':
        return livePage()
      case 'account':
        return accountPage()
      default:
        return go('#/live')
    }
  } catch (err) {
    if (current()) render(errorBox(err))
  }
}

// ---- sign-in and sign-up ----
// The server's rule (services/dashboard/src/auth/password-rules.ts), said where the password is typed.
const passwordRule = () =>
  h(
    'p',
    { class: 'muted hint', id: 'password-rule' },
    'At least 8 characters, not only spaces, and not a common password such as 12345678.',
  )

function authPage(mode) {
  const signup = mode === 'signup'
  const err = h('div')
  const form = h(
    'form',
    {
      onsubmit: async (e) => {
        e.preventDefault()
        const fd = new FormData(form)
        err.replaceChildren()
        const btn = $('button', form)
        btn.disabled = true
        try {
          state.me = await api('POST', signup ? '/signup' : '/signin', {
            email: fd.get('email'),
            password: fd.get('password'),
            ...(signup ? { name: fd.get('name') || undefined } : {}),
          })
          go(signup ? '#/keys' : '#/live')
        } catch (e2) {
          err.replaceChildren(errorBox(e2))
        } finally {
          btn.disabled = false
        }
      },
    },
    signup
      ? h('label', {}, 'Company or project name (optional)', h('input', { name: 'name', autocomplete: 'organization' }))
      : null,
    h('label', {}, 'Email', h('input', { name: 'email', type: 'email', required: true, autocomplete: 'email' })),
    h(
      'label',
      {},
      'Password',
      h('input', {
        name: 'password',
        type: 'password',
        required: true,
        minLength: signup ? 8 : undefined,
        autocomplete: signup ? 'new-password' : 'current-password',
        'aria-describedby': signup ? 'password-rule' : undefined,
      }),
    ),
    signup ? passwordRule() : null,
    h(
      'button',
      { type: 'submit', id: signup ? 'signup-submit' : 'signin-submit' },
      signup ? 'Create account' : 'Sign in',
    ),
  )
  const notice = state.notice
  state.notice = ''
  render(
    h(
      'div',
      { class: 'auth panel' },
      h('h1', {}, signup ? 'Create your account' : 'Sign in'),
      notice && !signup ? h('p', { class: 'notice', role: 'status', id: 'signin-notice' }, notice) : null,
      form,
      err,
      h(
        'p',
        { class: 'muted' },
        signup ? 'Already have an account? ' : 'New here? ',
        h('a', { href: signup ? '#/signin' : '#/signup' }, signup ? 'Sign in' : 'Create an account'),
      ),
    ),
  )
}

// ---- event detail: a drawer at the side of the viewport (all of it on a phone), so it is in view
// whichever row opened it; opened by a click on the row or by the row's name button (Tab, Enter),
// closed by its button or Escape, focus going back to the row ----
let detail = null
function closeDetail() {
  if (!detail) return
  const { el, opener, item } = detail
  detail = null
  el.remove()
  document.removeEventListener('keydown', onDetailKey)
  // Live redraws its rows as events arrive: then the opener is the new row of the same event.
  const row = opener.isConnected
    ? null
    : [...document.querySelectorAll('tr[data-event-id]')].find((r) => r.dataset.eventId === item.event_id)
  const back = row ? $('button.rowlink', row) : opener
  if (back?.isConnected) back.focus()
}
function onDetailKey(e) {
  if (e.key === 'Escape') closeDetail()
}
const valueText = (v) => (typeof v === 'string' ? v : JSON.stringify(v))
function kvTable(caption, entries) {
  return h(
    'table',
    { class: 'kv' },
    h('caption', {}, caption),
    h(
      'tbody',
      {},
      ...(entries.length
        ? entries.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'mono' }, valueText(v))))
        : [h('tr', {}, h('td', { colSpan: 2, class: 'muted' }, 'None'))]),
    ),
  )
}
const entriesOf = (o) => (o && typeof o === 'object' && !Array.isArray(o) ? Object.entries(o) : [])
function openDetail(item, opener) {
  closeDetail()
  const title = h('h2', { id: 'detail-title', tabIndex: -1 }, item.type === 'identify' ? 'identify' : item.event)
  const raw = h('pre', { id: 'detail-raw', hidden: true }, JSON.stringify(item, null, 2))
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'detail-raw-toggle',
      'aria-expanded': 'false',
      'aria-controls': 'detail-raw',
      onclick: () => {
        raw.hidden = !raw.hidden
        toggle.setAttribute('aria-expanded', String(!raw.hidden))
        toggle.textContent = raw.hidden ? 'Show raw JSON' : 'Hide raw JSON'
      },
    },
    'Show raw JSON',
  )
  const el = h(
    'aside',
    { id: 'detail', class: 'drawer', role: 'dialog', 'aria-labelledby': 'detail-title' },
    h(
      'div',
      { class: 'drawer-head' },
      title,
      h('button', { type: 'button', class: 'secondary', id: 'detail-close', onclick: closeDetail }, 'Close'),
    ),
    kvTable('Event', [
      ['Time', fmtTime(item.timestamp)],
      ['Received', fmtTime(item.received_at)],
      ['User', item.user_id],
      ['Key type', item.environment],
      ['Event id', item.event_id],
    ]),
    item.type === 'identify'
      ? kvTable('Traits', entriesOf(item.traits))
      : kvTable('Properties', entriesOf(item.properties)),
    kvTable('Context', entriesOf(item.context)),
    h('p', {}, toggle),
    raw,
  )
  document.body.append(el)
  detail = { el, opener, item }
  document.addEventListener('keydown', onDetailKey)
  title.focus()
}

/** A table row of one event or identify; the name is a button so keyboards reach the detail too. */
function detailRow(item, attrs, when, userCell) {
  const name = item.type === 'identify' ? 'identify' : item.event
  const open = h(
    'button',
    {
      type: 'button',
      class: 'link rowlink' + (item.type === 'identify' ? ' identify' : ''),
      title: name,
      'aria-haspopup': 'dialog',
    },
    name,
  )
  return h(
    'tr',
    {
      ...attrs,
      class: 'clickable',
      onclick: (e) => {
        if (!e.target.closest('a')) openDetail(item, open)
      },
    },
    h('td', {}, when),
    h('td', {}, h('span', { class: 'calltype' }, callType(item))),
    h('td', { class: 'name' }, open),
    h('td', { class: 'mono clip' }, userCell),
    h('td', {}, h('span', { class: `badge ${item.environment}` }, item.environment)),
  )
}

// ---- API keys ----
async function keysPage() {
  const secretBox = h('div')
  const announce = h('p', { role: 'status', class: 'sr-only', id: 'key-announce' })
  const err = h('div')
  const tbody = h('tbody')
  const refresh = async () => {
    const keys = await api('GET', '/keys')
    tbody.replaceChildren(
      ...(keys.length
        ? keys.map(keyRow)
        : [h('tr', {}, h('td', { colSpan: 7, class: 'muted' }, 'No keys yet. Create one above.'))]),
    )
  }
  const act = (k, action, question) => async () => {
    if (question && !confirm(question)) return
    err.replaceChildren()
    try {
      await api('POST', `/keys/${encodeURIComponent(k.key_id)}/${action}`)
      await refresh()
    } catch (e) {
      err.replaceChildren(errorBox(e))
    }
  }
  const keyRow = (k) =>
    h(
      'tr',
      { 'data-key-id': k.key_id },
      h('td', {}, k.name),
      h('td', {}, h('span', { class: `badge ${k.type}` }, k.type)),
      h('td', { class: 'mono' }, k.masked),
      h('td', {}, h('span', { class: `badge ${k.status}`, 'data-testid': 'key-status' }, k.status)),
      h('td', {}, fmtTime(k.created_at)),
      h('td', {}, k.last_used_at ? fmtTime(k.last_used_at) : h('span', { class: 'muted' }, 'never')),
      h(
        'td',
        { class: 'row' },
        k.status === 'active'
          ? h(
              'button',
              {
                class: 'secondary',
                onclick: act(
                  k,
                  'deactivate',
                  `Deactivate "${k.name}"? Requests with it will be refused until you reactivate it.`,
                ),
              },
              'Deactivate',
            )
          : null,
        k.status === 'inactive'
          ? h('button', { class: 'secondary', onclick: act(k, 'reactivate') }, 'Reactivate')
          : null,
        k.status !== 'revoked'
          ? h(
              'button',
              {
                class: 'danger',
                'data-action': 'revoke',
                onclick: act(
                  k,
                  'revoke',
                  `Revoke "${k.name}" for good? Requests with it will be refused; this cannot be undone.`,
                ),
              },
              'Revoke',
            )
          : null,
      ),
    )
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: async (e) => {
        e.preventDefault()
        const fd = new FormData(form)
        err.replaceChildren()
        try {
          const k = await api('POST', '/keys', { name: fd.get('name'), type: fd.get('type') })
          form.reset()
          const code = h('code', { id: 'new-key-secret' }, k.secret)
          const heading = h(
            'h2',
            { tabIndex: -1, id: 'new-key-heading' },
            `Your new ${k.type} key "${k.name}". Copy it now: it is shown once and never again.`,
          )
          const ingestUrl = state.me?.ingest_url || location.origin.replace(/:\d+$/, ':8080')
          secretBox.replaceChildren(
            h(
              'div',
              { class: 'panel secret' },
              heading,
              h('p', {}, code),
              h('p', { class: 'muted' }, 'Send a first event with it, then watch it arrive on the Live stream page:'),
              h(
                'pre',
                {},
                `curl -s -X POST ${state.me?.ingest_url || location.origin.replace(/:\d+$/, ':8080')}/v1/event \\\n  -H 'Authorization: Bearer ${k.secret}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"event":"signup_completed","user":{"id":"user_1"}}'`,
              ),
              // Ready-to-paste SDK snippets (sdk/README.md) for the new key.
              h('p', { class: 'muted' }, 'Or with the SDK (sdk/ in the repository) in Node:'),
              h(
                'pre',
                { id: 'new-key-node-snippet' },
                `import { TrackingClient, closeOnSignals } from '@event-tracking/sdk'\n\nconst client = new TrackingClient({ apiKey: '${k.secret}', baseUrl: '${ingestUrl}' })\ncloseOnSignals(client) // flush what is queued on SIGTERM/SIGINT\nclient.track('signup_completed', { plan: 'pro' }, { user: 'user_1' })\nawait client.shutdown() // send what is queued, then let the process exit`,
              ),
              h('p', { class: 'muted' }, 'In a browser page (anyone who loads the page can read the key):'),
              h(
                'pre',
                { id: 'new-key-browser-snippet' },
                `<script type="module">\n  import { TrackingClient } from '/sdk/index.js' // sdk/dist, served by your site\n  const client = new TrackingClient({ apiKey: '${k.secret}', baseUrl: '${ingestUrl}' })\n  client.identify('user_1', { plan: 'pro' })\n  client.track('page_viewed', { path: location.pathname })\n</script>`,
              ),
              h(
                'div',
                { class: 'row' },
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: async (ev) => {
                      try {
                        await navigator.clipboard.writeText(k.secret)
                        ev.target.textContent = 'Copied'
                      } catch {
                        getSelection().selectAllChildren(code)
                        ev.target.textContent = 'Selected: press Ctrl+C'
                      }
                    },
                  },
                  'Copy',
                ),
                h(
                  'button',
                  { type: 'button', class: 'secondary', onclick: () => secretBox.replaceChildren() },
                  'I have stored it',
                ),
              ),
            ),
          )
          // Screen readers hear that a secret appeared (the status region) and land on it (focus).
          announce.textContent = `Key "${k.name}" created. Its secret is shown below, once: copy it now.`
          heading.focus()
          await refresh()
        } catch (e2) {
          err.replaceChildren(errorBox(e2))
        }
      },
    },
    h(
      'label',
      {},
      'Name',
      h('input', { name: 'name', required: true, maxLength: 100, placeholder: 'production server' }),
    ),
    h(
      'label',
      {},
      'Type',
      h('select', { name: 'type' }, h('option', { value: 'live' }, 'Live'), h('option', { value: 'test' }, 'Test')),
    ),
    h('button', { type: 'submit', id: 'create-key' }, 'Create key'),
  )
  render(
    h('h1', {}, 'API keys'),
    h(
      'div',
      { class: 'panel' },
      form,
      h(
        'p',
        { class: 'muted' },
        'Live keys count toward your monthly event limit; test keys never do. Keys work at the ingest within about 2 seconds.',
      ),
    ),
    announce,
    secretBox,
    err,
    h(
      'div',
      { class: 'panel' },
      h(
        'table',
        { id: 'keys-table', class: 'cards' },
        h(
          'thead',
          {},
          h('tr', {}, ...['Name', 'Type', 'Key', 'Status', 'Created', 'Last used', ''].map((t) => h('th', {}, t))),
        ),
        tbody,
      ),
    ),
  )
  await refresh()
}

// ---- live stream ----
const LIVE_HISTORY = 50
const sameDay = (a, b) => a.toDateString() === b.toDateString()
const liveTime = (iso) => (sameDay(new Date(iso), new Date()) ? new Date(iso).toLocaleTimeString() : fmtTime(iso))
function envSelect({ value, ...attrs }) {
  const sel = h(
    'select',
    attrs,
    h('option', { value: '' }, 'All'),
    h('option', { value: 'live' }, 'Live'),
    h('option', { value: 'test' }, 'Test'),
  )
  sel.value = value || ''
  return sel
}
function typeSelect(value, changed, set) {
  const sel = h(
    'select',
    {
      id: 'filter-type',
      onchange: (e) => {
        set(e.target.value)
        changed()
      },
    },
    h('option', { value: '' }, 'All'),
    ...TYPES.map((t) => h('option', { value: t }, t)),
  )
  sel.value = value
  return sel
}
const eventsHead = (first) =>
  h('thead', {}, h('tr', {}, ...[first, 'Type', 'Event', 'User', 'Key type'].map((t) => h('th', { scope: 'col' }, t))))

// The call types a person recognises from Segment's spec (docs/api.md "Segment-compatible API",
// H49-H51): page and screen calls are events with reserved names and group calls events named $group,
// so the type is read from the name; anything else is an event, or an identify (aliases are identifies, H50).
const CALL_TYPES = { page_viewed: 'page', screen_viewed: 'screen', $group: 'group' }
const TYPES = ['event', 'page', 'screen', 'group', 'identify']
const callType = (item) => (item.type === 'identify' ? 'identify' : CALL_TYPES[item.event] || 'event')

function livePage() {
  const MAX = 500
  const items = []
  const pending = []
  let paused = false
  const seen = new Set()
  const { params } = hashRoute()
  const f = {
    event: params.get('event') || '',
    user: params.get('user') || '',
    env: params.get('env') || '',
    type: TYPES.includes(params.get('type')) ? params.get('type') : '',
  }
  let history = 'loading'
  const dot = h('span', { class: 'status-dot' })
  const status = h('span', {}, 'connecting…')
  const tbody = h('tbody', { id: 'live-rows' })
  const pauseBtn = h(
    'button',
    {
      type: 'button',
      id: 'live-pause',
      class: 'secondary',
      onclick: () => {
        paused = !paused
        pauseBtn.textContent = paused ? 'Resume' : 'Pause'
        if (!paused) {
          for (const i of pending.splice(0)) insertNewestFirst(i)
          draw()
        }
        drawStatus()
      },
    },
    'Pause',
  )
  // The feed delivers each insert's records partition by partition, so arrival order is not time
  // order: place each item by received_at (then its time-ordered id), newest first.
  const newer = (a, b) => a.received_at > b.received_at || (a.received_at === b.received_at && a.event_id > b.event_id)
  const insertNewestFirst = (item) => {
    if (seen.has(item.event_id)) return
    seen.add(item.event_id)
    let at = 0
    while (at < items.length && newer(items[at], item)) at++
    items.splice(at, 0, item)
    if (items.length > MAX) items.length = MAX
  }
  const keep = (i) =>
    (!f.event || (i.event || '').includes(f.event)) &&
    (!f.user || i.user_id.includes(f.user)) &&
    (!f.env || i.environment === f.env) &&
    (!f.type || callType(i) === f.type)
  const draw = () => {
    const shown = items.filter(keep)
    const empty = items.length
      ? 'No events match the filters.'
      : history === 'loading'
        ? 'Loading recent events…'
        : 'Waiting for events… send one with a key from the API keys page.'
    // Rows are redrawn as events arrive: a keyboard user's focus stays on the row it was on.
    const focused = document.activeElement?.closest('#live-rows tr[data-event-id]')
    tbody.replaceChildren(
      ...(shown.length
        ? shown.map((i) => detailRow(i, { 'data-event-id': i.event_id }, liveTime(i.received_at), i.user_id))
        : [h('tr', {}, h('td', { colSpan: 5, class: 'muted' }, empty))]),
    )
    const again = focused && [...tbody.rows].find((r) => r.dataset.eventId === focused.dataset.eventId)
    if (again) $('button.rowlink', again).focus()
  }
  const drawStatus = (text) => {
    if (text) status.textContent = text
    if (paused) status.textContent = `paused (${pending.length} new)`
  }
  const refilter = () => {
    setHashParams(f)
    draw()
  }
  const input = (key, label, attrs) =>
    h(
      'label',
      {},
      label,
      h('input', {
        ...attrs,
        value: f[key],
        oninput: (e) => {
          f[key] = e.target.value.trim()
          refilter()
        },
      }),
    )
  render(
    h('h1', {}, 'Live stream'),
    h(
      'div',
      { class: 'panel row' },
      input('event', 'Event name', { id: 'filter-event', placeholder: 'contains…' }),
      input('user', 'User id', { id: 'filter-user', placeholder: 'contains…' }),
      h(
        'label',
        {},
        'Type',
        typeSelect(f.type, refilter, (v) => (f.type = v)),
      ),
      h(
        'label',
        {},
        'Key type',
        envSelect({
          id: 'filter-env',
          value: f.env,
          onchange: (e) => {
            f.env = e.target.value
            refilter()
          },
        }),
      ),
      pauseBtn,
      h('span', { class: 'muted' }, dot, status),
    ),
    h('div', { class: 'panel' }, h('table', { class: 'events' }, eventsHead('Received'), tbody)),
  )
  draw()
  const current = stillCurrent()
  const es = new EventSource('/api/live')
  // The last events from ClickHouse, then the stream (U7); the stream is opened first so nothing
  // falls between the two, and an event in both is shown once.
  api('GET', '/live/history' + qs({ limit: String(LIVE_HISTORY) }))
    .then((rows) => {
      if (!current()) return
      for (const r of rows) insertNewestFirst({ type: 'event', ...r })
      history = 'done'
      draw()
    })
    .catch((e) => {
      if (current()) {
        history = 'done'
        draw()
        drawStatus(`recent events unavailable: ${e.message}`)
      }
    })
  const onItem = (e) => {
    let item
    try {
      item = JSON.parse(e.data)
    } catch {
      return
    }
    if (paused) {
      pending.push(item)
      if (pending.length > MAX) pending.shift()
      return drawStatus()
    }
    insertNewestFirst(item)
    draw()
  }
  es.addEventListener('event', onItem)
  es.addEventListener('identify', onItem)
  es.addEventListener('dropped', () => drawStatus('dropped by the server (too slow); reconnecting…'))
  es.onopen = () => {
    dot.classList.add('on')
    drawStatus('connected')
  }
  es.onerror = () => {
    dot.classList.remove('on')
    drawStatus('reconnecting…')
  }
  state.cleanup.push(() => es.close())
}

// ---- usage ----
function meter(value, limit) {
  const bar = h('div')
  bar.style.width = `${Math.min(100, limit ? (100 * value) / limit : 0)}%`
  return h('div', { class: 'meter' }, bar)
}

/** The width a chart in a panel is shown at (capped at `max`): drawn at that size, its text is not scaled down. */
function chartWidth(max) {
  const m = main()
  const pad = 2 * parseFloat(getComputedStyle(m).paddingLeft) + 34
  return Math.max(260, Math.min(max, Math.floor(m.clientWidth - pad)))
}

function hourlyChart(rows) {
  const W = chartWidth(1000),
    H = 180,
    P = 28
  const max = Math.max(1, ...rows.map((r) => r.live + r.test))
  const bw = (W - P) / Math.max(1, rows.length)
  const svg = h('svg', {
    viewBox: `0 0 ${W} ${H + 20}`,
    width: '100%',
    role: 'img',
    'aria-label': 'Events per hour',
    id: 'hourly-chart',
  })
  svg.append(
    h('line', { class: 'axis', x1: P, y1: H, x2: W, y2: H }),
    h('text', { x: 0, y: 12 }, fmtNum(max)),
    h('text', { x: 0, y: H }, '0'),
  )
  rows.forEach((r, i) => {
    const x = P + i * bw
    const hl = (r.live / max) * (H - 10),
      ht = (r.test / max) * (H - 10)
    const tip = h('title', {}, `${new Date(r.hour).toLocaleString()}: ${r.live} live, ${r.test} test`)
    const g = h('g', {}, tip)
    if (r.live) g.append(h('rect', { class: 'bar-live', x, y: H - hl, width: Math.max(1, bw - 1), height: hl }))
    if (r.test) g.append(h('rect', { class: 'bar-test', x, y: H - hl - ht, width: Math.max(1, bw - 1), height: ht }))
    g.append(h('rect', { x, y: 0, width: bw, height: H, fill: 'transparent' }))
    svg.append(g)
    if (new Date(r.hour).getHours() === 0 && x < W - 70 && x > P + 20)
      svg.append(h('text', { x, y: H + 14 }, new Date(r.hour).toLocaleDateString()))
  })
  return svg
}

async function usagePage() {
  const box = h('div')
  render(h('h1', {}, 'Usage'), box)
  const load = async () => {
    const u = await api('GET', '/usage?days=3')
    const stat = (id, title, value, limit, note) =>
      h(
        'div',
        { class: 'panel stat', id },
        h('div', { class: 'muted' }, title),
        h(
          'div',
          { class: 'num' },
          h('span', { 'data-testid': 'value' }, fmtNum(value)),
          h('span', { class: 'muted' }, ` / ${fmtNum(limit)}`),
        ),
        meter(value, limit),
        note ? h('div', { class: 'muted' }, note) : null,
      )
    box.replaceChildren(
      h(
        'div',
        { class: 'panel' },
        h('strong', {}, 'Plan: '),
        h('span', { id: 'plan-name' }, u.plan.name),
        ' — ',
        `${fmtNum(u.plan.requests_per_minute)} requests/minute, ${fmtNum(u.plan.events_per_month)} events/month, ${fmtNum(u.plan.emails_per_month)} emails/month. `,
        h('span', { class: 'muted' }, `Month ${u.month} resets ${fmtTime(u.resets_at)}.`),
      ),
      h(
        'div',
        { class: 'grid' },
        stat(
          'usage-events',
          'Events this month (live keys)',
          u.events_this_month.live,
          u.events_this_month.limit,
          `${fmtNum(u.events_this_month.test)} of ${fmtNum(u.events_this_month.test_limit)} test-key events (counted apart)`,
        ),
        stat(
          'usage-emails',
          'Emails this month',
          u.emails_this_month.sent,
          u.emails_this_month.limit,
          'No emails are sent yet.',
        ),
        stat(
          'usage-requests',
          'Requests this minute',
          u.requests_this_minute.count,
          u.requests_this_minute.limit,
          'Accepted requests, as projected (a second behind).',
        ),
      ),
      h(
        'div',
        { class: 'panel' },
        h('h2', {}, 'Events per hour, last 3 days'),
        h(
          'div',
          { class: 'legend muted' },
          h('span', {}, h('span', { class: 'sw live' }), 'live'),
          h('span', {}, h('span', { class: 'sw test' }), 'test'),
        ),
        hourlyChart(u.events_per_hour),
      ),
    )
  }
  await load()
  const timer = setInterval(() => load().catch((e) => box.prepend(errorBox(e))), 5000)
  state.cleanup.push(() => clearInterval(timer))
}

// ---- explorer ----
const toLocalInput = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16)

function eventsTable(rows) {
  return h(
    'table',
    { id: 'events-table', class: 'events' },
    eventsHead('Time'),
    h(
      'tbody',
      {},
      ...(rows.length
        ? rows.map((r) =>
            detailRow(
              { type: 'event', ...r },
              { 'data-event-id': r.event_id },
              fmtTime(r.timestamp),
              h('a', { href: `#/users/${encodeURIComponent(r.user_id)}`, title: r.user_id }, r.user_id),
            ),
          )
        : [h('tr', {}, h('td', { colSpan: 5, class: 'muted' }, 'No events in this range.'))]),
    ),
  )
}

function topChart(rows) {
  const W = chartWidth(600),
    row = 24,
    L = Math.min(180, Math.round(W * 0.42)),
    chars = Math.floor(L / 7)
  const max = Math.max(1, ...rows.map((r) => r.events))
  const svg = h('svg', {
    viewBox: `0 0 ${W} ${Math.max(1, rows.length) * row + 4}`,
    width: W,
    height: Math.max(1, rows.length) * row + 4,
    role: 'img',
    'aria-label': 'Top events',
    id: 'top-chart',
  })
  rows.forEach((r, i) => {
    const w = ((W - L - 60) * r.events) / max
    svg.append(
      h('text', { x: 0, y: i * row + 16 }, r.event.length > chars ? r.event.slice(0, chars - 1) + '…' : r.event),
      h(
        'rect',
        { class: 'bar', x: L, y: i * row + 4, width: Math.max(1, w), height: row - 8 },
        h('title', {}, `${r.event}: ${r.events} events, ${r.users} users`),
      ),
      h('text', { x: L + w + 6, y: i * row + 16 }, fmtNum(r.events)),
    )
  })
  if (!rows.length) svg.append(h('text', { x: 0, y: 16 }, 'No events in this range.'))
  return svg
}

async function explorerPage() {
  const now = new Date()
  const { params } = hashRoute()
  const from = h('input', {
    type: 'datetime-local',
    name: 'from',
    value: params.get('from') || toLocalInput(new Date(now.getTime() - 7 * 86400000)),
  })
  const to = h('input', {
    type: 'datetime-local',
    name: 'to',
    value: params.get('to') || toLocalInput(new Date(now.getTime() + 3600000)),
  })
  const ev = h('input', { name: 'event', placeholder: 'contains…', value: params.get('event') || '' })
  const user = h('input', { name: 'user_id', placeholder: 'contains…', value: params.get('user') || '' })
  const env = envSelect({ name: 'environment', value: params.get('env') })
  const results = h('div')
  const load = async () => {
    const range = {
      from: new Date(from.value).toISOString(),
      to: new Date(to.value).toISOString(),
      environment: env.value,
    }
    try {
      const [events, top] = await Promise.all([
        api(
          'GET',
          '/events' + qs({ ...range, event_contains: ev.value.trim(), user_contains: user.value.trim(), limit: '100' }),
        ),
        api('GET', '/top-events' + qs(range)),
      ])
      results.replaceChildren(
        h('div', { class: 'panel' }, h('h2', {}, 'Top events'), topChart(top)),
        h('div', { class: 'panel' }, h('h2', {}, `Recent events (${events.length})`), eventsTable(events)),
      )
    } catch (e) {
      results.replaceChildren(errorBox(e))
    }
  }
  const form = h(
    'form',
    {
      class: 'panel row',
      onsubmit: (e) => {
        e.preventDefault()
        setHashParams({
          event: ev.value.trim(),
          user: user.value.trim(),
          env: env.value,
          from: from.value,
          to: to.value,
        })
        void load()
      },
    },
    h('label', {}, 'Event name', ev),
    h('label', {}, 'User id', user),
    h('label', {}, 'Key type', env),
    h('label', {}, 'From', from),
    h('label', {}, 'To', to),
    h('button', { type: 'submit' }, 'Apply'),
    h('span', { class: 'muted' }, 'or open a user: '),
    h('input', {
      placeholder: 'user id',
      'aria-label': 'Open a user by id',
      onkeydown: (e) => {
        if (e.key === 'Enter' && e.target.value.trim()) {
          e.preventDefault()
          go('#/users/' + encodeURIComponent(e.target.value.trim()))
        }
      },
    }),
  )
  render(h('h1', {}, 'Explorer'), form, results)
  await load()
}

async function userPage(userId) {
  const current = stillCurrent()
  let u
  try {
    u = await api('GET', `/users/${encodeURIComponent(userId)}`)
  } catch (e) {
    if (!current()) return
    return render(
      h('h1', {}, `User ${userId}`),
      e.status === 404 ? h('p', { class: 'muted' }, 'No events or profile for this user id.') : errorBox(e),
    )
  }
  if (!current()) return
  render(
    h('h1', {}, 'User ', h('span', { class: 'mono' }, u.user_id)),
    ...u.profiles.map((p) =>
      h(
        'div',
        { class: 'panel' },
        h('h2', {}, h('span', { class: `badge ${p.environment}` }, p.environment), ' profile'),
        h(
          'table',
          {},
          h(
            'tbody',
            {},
            h('tr', {}, h('th', {}, 'Email'), h('td', {}, p.email || '—')),
            h('tr', {}, h('th', {}, 'First seen'), h('td', {}, fmtTime(p.first_seen))),
            h('tr', {}, h('th', {}, 'Last seen'), h('td', {}, fmtTime(p.last_seen))),
            ...Object.entries(p.traits).map(([k, v]) =>
              h(
                'tr',
                {},
                h('th', {}, `trait: ${k}`),
                h('td', { class: 'mono' }, typeof v === 'string' ? v : JSON.stringify(v)),
              ),
            ),
          ),
        ),
      ),
    ),
    anonymousIdsPanel(u.anonymous_ids),
    h('div', { class: 'panel' }, h('h2', {}, 'Recent events'), eventsTable(u.recent_events)),
    erasePanel(u.user_id),
  )
}

/** The anonymous ids that now map to this person (H50): their events from before they were known are in the list below. */
function anonymousIdsPanel(ids) {
  if (!ids?.length) return []
  return h(
    'div',
    { class: 'panel', id: 'anonymous-ids' },
    h('h2', {}, 'Anonymous ids'),
    h(
      'p',
      { class: 'muted' },
      'Visits from before this person was known (Segment identify or alias). Their events are part of the history below.',
    ),
    h('ul', { class: 'anonymous-ids' }, ...ids.map((id) => h('li', { class: 'mono', title: id }, id))),
  )
}

// ---- definitions: every event name and trait key with counts, types and examples (U8) ----
const keyTypes = (k) => `${k.types.join(' | ') || '—'}${k.examples.length ? ' e.g. ' + k.examples.join(', ') : ''}`
function keyList(keys) {
  if (!keys.length) return h('span', { class: 'muted' }, 'none')
  return h(
    'ul',
    { class: 'keys' },
    ...keys.map((k) => h('li', {}, h('code', {}, k.key), ' ', h('span', { class: 'muted' }, keyTypes(k)))),
  )
}

async function definitionsPage() {
  const { params } = hashRoute()
  const env = envSelect({
    id: 'definitions-env',
    value: params.get('env'),
    onchange: () => {
      setHashParams({ env: env.value })
      void load()
    },
  })
  const box = h('div')
  render(
    h('h1', {}, 'Definitions'),
    h(
      'div',
      { class: 'panel row' },
      h('label', {}, 'Key type', env),
      h(
        'p',
        { class: 'muted hint' },
        "Every event name and user trait of this account. Property types and examples come from each event's latest rows.",
      ),
    ),
    box,
  )
  const current = stillCurrent()
  const load = async () => {
    const d = await api('GET', '/definitions' + qs({ environment: env.value }))
    if (!current()) return
    box.replaceChildren(
      h(
        'div',
        { class: 'panel' },
        h('h2', {}, `Events (${d.events.length})`),
        h(
          'table',
          { id: 'definitions-events', class: 'cards defs' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Event', 'Last 7 days', 'Last 30 days', 'First seen', 'Last seen', 'Properties'].map((t) =>
                h('th', { scope: 'col' }, t),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            ...(d.events.length
              ? d.events.map((e) =>
                  h(
                    'tr',
                    { 'data-event': e.event },
                    h('td', { class: 'mono' }, h('a', { href: '#/explorer' + qs({ event: e.event }) }, e.event)),
                    h('td', { 'data-label': 'Last 7 days' }, fmtNum(e.last_7d)),
                    h('td', { 'data-label': 'Last 30 days' }, fmtNum(e.last_30d)),
                    h('td', { 'data-label': 'First seen' }, fmtTime(e.first_seen)),
                    h('td', { 'data-label': 'Last seen' }, fmtTime(e.last_seen)),
                    h('td', {}, keyList(e.properties)),
                  ),
                )
              : [h('tr', {}, h('td', { colSpan: 6, class: 'muted' }, 'No events yet.'))]),
          ),
        ),
      ),
      h(
        'div',
        { class: 'panel' },
        h('h2', {}, `User traits (${d.traits.length})`),
        h(
          'table',
          { id: 'definitions-traits', class: 'cards defs' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Trait', 'Users', 'Types and examples', 'First set', 'Last set'].map((t) =>
                h('th', { scope: 'col' }, t),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            ...(d.traits.length
              ? d.traits.map((k) =>
                  h(
                    'tr',
                    { 'data-trait': k.key },
                    h('td', { class: 'mono' }, k.key),
                    h('td', { 'data-label': 'Users' }, fmtNum(k.users)),
                    h('td', {}, keyTypes(k)),
                    h('td', { 'data-label': 'First set' }, fmtTime(k.first_seen)),
                    h('td', { 'data-label': 'Last set' }, fmtTime(k.last_seen)),
                  ),
                )
              : [h('tr', {}, h('td', { colSpan: 5, class: 'muted' }, 'No traits yet.'))]),
          ),
        ),
      ),
    )
  }
  await load()
}

// ---- erasure of one user (A12, docs/privacy.md): a confirmation saying what happens, then the receipt ----
function erasePanel(userId) {
  const receipt = h('div', { id: 'erasure-receipt' })
  const suppress = h('input', { type: 'checkbox', id: 'erase-suppress' })
  const btn = h(
    'button',
    {
      id: 'erase-user',
      class: 'danger',
      onclick: async () => {
        const question =
          `Erase user ${userId}? Their events, identifies and profile are deleted from every table within a minute, and replays will not bring them back; monthly usage counts stay.` +
          (suppress.checked
            ? ' New events for this user id will be refused.'
            : ' New events for this user id will be stored again.') +
          ' Not yet erased: the Kafka history (see docs/privacy.md).'
        if (!confirm(question)) return
        btn.disabled = true
        try {
          const e = await api('POST', '/erasures', { user_id: userId, suppress: suppress.checked })
          await watchReceipt(e.erasure_id, receipt)
        } catch (err) {
          receipt.replaceChildren(errorBox(err))
          btn.disabled = false
        }
      },
    },
    'Erase this user',
  )
  return h(
    'div',
    { class: 'panel' },
    h('h2', {}, 'Privacy'),
    h('label', {}, suppress, ' refuse new events for this user id'),
    ' ',
    btn,
    receipt,
  )
}

/** Shows the receipt step by step until the projections are purged (or the page is left). */
async function watchReceipt(erasureId, box) {
  const current = stillCurrent()
  while (current()) {
    const e = (await api('GET', '/erasures')).find((x) => x.erasure_id === erasureId)
    if (e) box.replaceChildren(receiptTable(e))
    if (e?.steps.projections_purged_at) return
    await new Promise((r) => setTimeout(r, 1000))
  }
}

const receiptTable = (e) =>
  h(
    'table',
    { id: 'erasure-steps' },
    h(
      'tbody',
      {},
      h('tr', {}, h('th', {}, 'Requested'), h('td', {}, `${fmtTime(e.requested_at)} by ${e.requested_by}`)),
      h(
        'tr',
        { 'data-step': 'projections' },
        h('th', {}, 'Projections purged'),
        h('td', {}, e.steps.projections_purged_at ? fmtTime(e.steps.projections_purged_at) : 'in progress'),
      ),
      h(
        'tr',
        { 'data-step': 'history' },
        h('th', {}, 'Kafka history unreadable'),
        h('td', {}, e.steps.history_unreadable_at ? fmtTime(e.steps.history_unreadable_at) : 'not yet (stage 2)'),
      ),
      h(
        'tr',
        { 'data-step': 'disk' },
        h('th', {}, 'Last copy gone from disk'),
        h('td', {}, e.steps.disk_gone_at ? fmtTime(e.steps.disk_gone_at) : 'not yet (stage 2)'),
      ),
    ),
  )

// ---- account: password change and sign out everywhere (sessions end on the server) ----
function accountPage() {
  const pwMsg = h('div')
  const pwForm = h(
    'form',
    {
      id: 'password-form',
      class: 'row',
      onsubmit: async (e) => {
        e.preventDefault()
        const fd = new FormData(pwForm)
        pwMsg.replaceChildren()
        if (fd.get('new_password') !== fd.get('confirm_password'))
          return pwMsg.replaceChildren(errorBox(new Error('The new passwords differ')))
        const btn = $('button', pwForm)
        btn.disabled = true
        try {
          await api('POST', '/password', {
            current_password: fd.get('current_password'),
            new_password: fd.get('new_password'),
          })
          pwForm.reset()
          pwMsg.replaceChildren(
            h('p', { id: 'password-changed', role: 'status' }, 'Password changed. Every other session is signed out.'),
          )
        } catch (e2) {
          pwMsg.replaceChildren(errorBox(e2))
        } finally {
          btn.disabled = false
        }
      },
    },
    h(
      'label',
      {},
      'Current password',
      h('input', { name: 'current_password', type: 'password', required: true, autocomplete: 'current-password' }),
    ),
    h(
      'label',
      {},
      'New password',
      h('input', {
        name: 'new_password',
        type: 'password',
        required: true,
        minLength: 8,
        autocomplete: 'new-password',
        'aria-describedby': 'password-rule',
      }),
    ),
    h(
      'label',
      {},
      'New password again',
      h('input', {
        name: 'confirm_password',
        type: 'password',
        required: true,
        minLength: 8,
        autocomplete: 'new-password',
      }),
    ),
    h('button', { type: 'submit', id: 'change-password' }, 'Change password'),
    passwordRule(),
  )
  const outMsg = h('div')
  const everywhere = h(
    'button',
    {
      type: 'button',
      id: 'signout-everywhere',
      class: 'danger',
      onclick: async () => {
        if (!confirm('Sign out of the dashboard on every device, this one included?')) return
        outMsg.replaceChildren()
        try {
          await api('POST', '/signout-everywhere')
          state.me = null
          showNav()
          go('#/signin')
        } catch (e2) {
          outMsg.replaceChildren(errorBox(e2))
        }
      },
    },
    'Sign out everywhere',
  )
  render(
    h('h1', {}, 'Account'),
    h(
      'div',
      { class: 'panel' },
      h('h2', {}, 'Change password'),
      h('p', { class: 'muted' }, 'Changing the password signs out every other browser and device.'),
      pwForm,
      pwMsg,
    ),
    h(
      'div',
      { class: 'panel' },
      h('h2', {}, 'Sessions'),
      h(
        'p',
        { class: 'muted' },
        'Lost a device or signed in somewhere you should not have? End every session of this account.',
      ),
      everywhere,
      outMsg,
    ),
    retentionPanel(),
  )
}

// H60: how many months of events the account keeps; older ones leave the tables and replays.
function retentionPanel() {
  const msg = h('div')
  const input = h('input', { id: 'retention-months', name: 'months', type: 'number', min: 0, max: 120, required: true })
  const form = h(
    'form',
    {
      id: 'retention-form',
      class: 'row',
      onsubmit: async (e) => {
        e.preventDefault()
        msg.replaceChildren()
        try {
          const r = await api('POST', '/retention', { months: Number(input.value) })
          const kept = r.months === 0 ? 'Events are kept for ever.' : `Events are kept for ${r.months} months.`
          msg.replaceChildren(h('p', { id: 'retention-saved', role: 'status' }, kept))
        } catch (e2) {
          msg.replaceChildren(errorBox(e2))
        }
      },
    },
    h('label', {}, 'Months of events kept (0: for ever)', input),
    h('button', { type: 'submit', id: 'save-retention' }, 'Save'),
  )
  api('GET', '/retention').then(
    (r) => {
      input.value = String(r.months)
    },
    (e2) => msg.replaceChildren(errorBox(e2)),
  )
  return h(
    'div',
    { class: 'panel' },
    h('h2', {}, 'Data retention'),
    h(
      'p',
      { class: 'muted' },
      'Events older than this are deleted from the dashboard within the hour and are not brought back by a replay. Monthly usage counts stay.',
    ),
    form,
    msg,
  )
}

window.addEventListener('hashchange', route)
document.addEventListener('DOMContentLoaded', () => {
  $('#signout').addEventListener('click', async () => {
    try {
      await api('POST', '/signout')
    } finally {
      state.me = null
      showNav()
      go('#/signin')
    }
  })
  void route()
})
