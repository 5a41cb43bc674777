import { api, errorBox, fmtTime, h, panel, render, stillCurrent } from '../core.js'
import { erasePanel } from '../erasure.js'
import { eventsTable } from '../events-table.js'

/** @param {string} userId */
export async function userPage(userId) {
  const current = stillCurrent()
  let u
  try {
    u = await api('GET', `/users/${encodeURIComponent(userId)}`)
  } catch (/** @type {any} */ e) {
    if (!current()) return
    return render(
      h('h1', {}, `User ${userId}`),
      e.status === 404 ? h('p', { class: 'muted' }, 'No events or profile for this user id.') : errorBox(e),
    )
  }
  if (!current()) return
  render(
    h('h1', {}, 'User ', h('span', { class: 'mono' }, u.user_id)),
    ...u.profiles.map((/** @type {any} */ p) =>
      panel(
        [h('span', { class: `badge ${p.environment}` }, p.environment), ' profile'],
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
    panel('Recent events', eventsTable(u.recent_events)),
    identifiesPanel(u.recent_identifies),
    erasePanel(u.user_id),
  )
}

/**
 * The person's identifies and aliases (H50), newest first: who they said they were, and when.
 * @param {import('../core.js').EventItem[] | undefined} rows
 * @returns {HTMLElement | HTMLElement[]}
 */
function identifiesPanel(rows) {
  if (!rows?.length) return []
  return panel('Identifies', eventsTable(rows, 'identifies-table'))
}

/**
 * The anonymous ids that now map to this person (H50): their events from before they were known are in the list below.
 * @param {string[] | undefined} ids
 * @returns {HTMLElement | HTMLElement[]}
 */
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
