// ---- persons: the account's users, searched by id, email or trait value, each opening the user page (U11) ----
import { api, fmtTime, h, hashRoute, qs, render, setHashParams, stillCurrent } from '../core.js'
import { envSelect } from '../events-table.js'

/** @typedef {{ user_id: string, email: string | null, first_seen: string, last_seen: string, environments: string[] }} Person */

/** @param {Person} p */
const personRow = (p) =>
  h(
    'tr',
    { 'data-user-id': p.user_id },
    h(
      'td',
      { class: 'mono clip' },
      h('a', { href: `#/users/${encodeURIComponent(p.user_id)}`, title: p.user_id }, p.user_id),
    ),
    h('td', { class: 'clip', 'data-label': 'Email', title: p.email || '' }, p.email || '—'),
    h('td', { 'data-label': 'First seen' }, fmtTime(p.first_seen)),
    h('td', { 'data-label': 'Last seen' }, fmtTime(p.last_seen)),
    h('td', {}, ...p.environments.map((e) => h('span', { class: `badge ${e}` }, e))),
  )

export async function personsPage() {
  const { params } = hashRoute()
  const search = h('input', {
    id: 'persons-search',
    type: 'search',
    name: 'q',
    placeholder: 'id, email or trait value',
    value: params.get('q') || '',
  })
  const env = envSelect({ id: 'persons-env', value: params.get('env') })
  const box = h('div')
  // The pages seen so far, each by the `after` it was read with, so Previous goes back without a cursor of its own.
  /** @type {string[]} */
  const trail = []
  let after = params.get('after') || ''
  const current = stillCurrent()
  const load = async () => {
    setHashParams({ q: search.value.trim(), env: env.value, after })
    const d = await api('GET', '/persons' + qs({ q: search.value.trim(), environment: env.value, after }))
    if (!current()) return
    /** @type {Person[]} */
    const persons = d.persons
    const prev = h('button', { type: 'button', class: 'secondary', id: 'persons-prev', disabled: !after }, 'Previous')
    const next = h('button', { type: 'button', class: 'secondary', id: 'persons-next', disabled: !d.next }, 'Next')
    prev.addEventListener('click', () => {
      after = trail.pop() || ''
      void load()
    })
    next.addEventListener('click', () => {
      trail.push(after)
      after = d.next
      void load()
    })
    box.replaceChildren(
      h(
        'div',
        { class: 'panel' },
        h(
          'h2',
          { id: 'persons-count' },
          persons.length ? `Persons (${persons.length} on this page)` : 'No persons found',
        ),
        h(
          'table',
          { id: 'persons-table', class: 'cards persons' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['User', 'Email', 'First seen', 'Last seen', 'Key type'].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h(
            'tbody',
            {},
            ...(persons.length
              ? persons.map(personRow)
              : [h('tr', {}, h('td', { colSpan: 5, class: 'muted' }, 'No users match.'))]),
          ),
        ),
        h('div', { class: 'row' }, prev, next),
      ),
    )
  }
  const form = h(
    'form',
    {
      class: 'panel row',
      role: 'search',
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        trail.length = 0
        after = ''
        void load()
      },
    },
    h('label', {}, 'Search', search),
    h('label', {}, 'Key type', env),
    h('button', { type: 'submit', id: 'persons-apply' }, 'Search'),
    h('p', { class: 'muted hint' }, 'Anonymous visitors since identified are listed under the person they became.'),
  )
  render(h('h1', {}, 'Persons'), form, box)
  await load()
}
