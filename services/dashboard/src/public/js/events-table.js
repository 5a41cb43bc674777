import { fmtTime, h } from './core.js'
import { detailRow } from './detail.js'

/** @param {{ value?: string | null } & import('./core.js').Attrs} attrs */
export function envSelect({ value, ...attrs }) {
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
/** @param {string} first */
export const eventsHead = (first) =>
  h('thead', {}, h('tr', {}, ...[first, 'Type', 'Event', 'User', 'Key type'].map((t) => h('th', { scope: 'col' }, t))))

/**
 * Events or identifies (a row's `type`, events by default), each row opening the detail drawer.
 * @param {import('./core.js').EventItem[]} rows
 * @param {string} [id]
 */
export function eventsTable(rows, id = 'events-table') {
  return h(
    'table',
    { id, class: 'events' },
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
