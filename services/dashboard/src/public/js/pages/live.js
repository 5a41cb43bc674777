import { $, api, fmtTime, h, hashRoute, qs, render, setHashParams, state, stillCurrent } from '../core.js'
import { detailRow } from '../detail.js'
import { envSelect, eventsHead } from '../events-table.js'
import { TYPES, callType } from '../call-types.js'
/** @typedef {import('../core.js').EventItem} EventItem */

// ---- live stream ----
const LIVE_HISTORY = 50
/** @param {Date} a @param {Date} b */
const sameDay = (a, b) => a.toDateString() === b.toDateString()
/** @param {string} iso */
const liveTime = (iso) => (sameDay(new Date(iso), new Date()) ? new Date(iso).toLocaleTimeString() : fmtTime(iso))
/**
 * @param {string} value
 * @param {() => void} changed
 * @param {(type: string) => void} set
 */
function typeSelect(value, changed, set) {
  const sel = h(
    'select',
    {
      id: 'filter-type',
      onchange: (/** @type {Event & { target: HTMLSelectElement }} */ e) => {
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

export function livePage() {
  const MAX = 500
  /** @type {EventItem[]} */
  const items = []
  /** @type {EventItem[]} */
  const pending = []
  let paused = false
  const seen = new Set()
  const { params } = hashRoute()
  const type = params.get('type') || ''
  const f = {
    event: params.get('event') || '',
    user: params.get('user') || '',
    env: params.get('env') || '',
    type: TYPES.includes(type) ? type : '',
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
  /** @param {EventItem} a @param {EventItem} b */
  const newer = (a, b) =>
    (a.received_at ?? '') > (b.received_at ?? '') || (a.received_at === b.received_at && a.event_id > b.event_id)
  /** @param {EventItem} item */
  const insertNewestFirst = (item) => {
    if (seen.has(item.event_id)) return
    seen.add(item.event_id)
    let at = 0
    while (at < items.length && newer(items[at], item)) at++
    items.splice(at, 0, item)
    if (items.length > MAX) items.length = MAX
  }
  /** @param {EventItem} i */
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
    const focused = /** @type {HTMLElement | null | undefined} */ (
      document.activeElement?.closest('#live-rows tr[data-event-id]')
    )
    tbody.replaceChildren(
      ...(shown.length
        ? shown.map((i) =>
            detailRow(i, { 'data-event-id': i.event_id }, liveTime(i.received_at ?? i.timestamp), i.user_id),
          )
        : [h('tr', {}, h('td', { colSpan: 5, class: 'muted' }, empty))]),
    )
    const again = focused && [...tbody.rows].find((r) => r.dataset.eventId === focused.dataset.eventId)
    if (again) $('button.rowlink', again).focus()
  }
  /** @param {string} [text] */
  const drawStatus = (text) => {
    if (text) status.textContent = text
    if (paused) status.textContent = `paused (${pending.length} new)`
  }
  const refilter = () => {
    setHashParams(f)
    draw()
  }
  /** @param {'event' | 'user'} key @param {string} label @param {import('../core.js').Attrs} attrs */
  const input = (key, label, attrs) =>
    h(
      'label',
      {},
      label,
      h('input', {
        ...attrs,
        value: f[key],
        oninput: (/** @type {Event & { target: HTMLInputElement }} */ e) => {
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
          onchange: (/** @type {Event & { target: HTMLSelectElement }} */ e) => {
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
  /** @param {MessageEvent} e */
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
