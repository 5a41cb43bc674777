import { api, fmtNum, fmtTime, h, hashRoute, panel, qs, render, setHashParams, stillCurrent } from '../core.js'
import { envSelect } from '../events-table.js'

// ---- definitions: every event name and trait key with counts, types and examples (U8) ----
/** A property or trait key of GET /api/definitions. @typedef {{ key: string, types: string[], examples: string[] }} KeyInfo */
/** @param {KeyInfo} k */
const keyTypes = (k) => `${k.types.join(' | ') || '—'}${k.examples.length ? ' e.g. ' + k.examples.join(', ') : ''}`
/** @param {KeyInfo[]} keys */
function keyList(keys) {
  if (!keys.length) return h('span', { class: 'muted' }, 'none')
  return h(
    'ul',
    { class: 'keys' },
    ...keys.map((k) => h('li', {}, h('code', {}, k.key), ' ', h('span', { class: 'muted' }, keyTypes(k)))),
  )
}

export async function definitionsPage() {
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
      panel(
        `Events (${d.events.length})`,
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
              ? d.events.map((/** @type {any} */ e) =>
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
      panel(
        `User traits (${d.traits.length})`,
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
              ? d.traits.map((/** @type {any} */ k) =>
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
