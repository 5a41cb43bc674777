import { callType } from './call-types.js'
import { $, fmtTime, h } from './core.js'
/** @typedef {import('./core.js').EventItem} EventItem */

// ---- event detail: a drawer at the side of the viewport (all of it on a phone), so it is in view
// whichever row opened it; opened by a click on the row or by the row's name button (Tab, Enter),
// closed by its button or Escape, focus going back to the row ----
/** @type {{ el: HTMLElement, opener: HTMLElement, item: EventItem } | null} */
let detail = null
export function closeDetail() {
  if (!detail) return
  const { el, opener, item } = detail
  detail = null
  el.remove()
  document.removeEventListener('keydown', onDetailKey)
  // Live redraws its rows as events arrive: then the opener is the new row of the same event.
  const row = opener.isConnected
    ? null
    : [...document.querySelectorAll('tr[data-event-id]')].find(
        (r) => /** @type {HTMLElement} */ (r).dataset.eventId === item.event_id,
      )
  const back = row ? $('button.rowlink', row) : opener
  if (back?.isConnected) back.focus()
}
/** @param {KeyboardEvent} e */
function onDetailKey(e) {
  if (e.key === 'Escape') closeDetail()
}
/** @param {unknown} v */
const valueText = (v) => (typeof v === 'string' ? v : JSON.stringify(v))
/** @param {string} caption @param {[string, unknown][]} entries */
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
/** @param {unknown} o @returns {[string, unknown][]} */
const entriesOf = (o) => (o && typeof o === 'object' && !Array.isArray(o) ? Object.entries(o) : [])
/** @param {EventItem} item @param {HTMLElement} opener */
export function openDetail(item, opener) {
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
/**
 * @param {EventItem} item
 * @param {Record<string, string>} attrs
 * @param {string} when
 * @param {Node | string} userCell
 */
export function detailRow(item, attrs, when, userCell) {
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
      onclick: /** @param {MouseEvent & { target: Element }} e */ (e) => {
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
