// ---- retention: weekly cohorts of persons and their returns in the weeks after (U18) ----
import { api, fmtNum, h, hashRoute, panel, qs, render, setHashParams, stillCurrent } from '../core.js'
import { envSelect } from '../events-table.js'
import { choiceSelect, pct } from './funnels.js'

/** @typedef {{ week: string, persons: number, returned: (number | null)[], rates: (number | null)[] }} Cohort */

/** A cell shaded by its rate, the value written in it; dark text on the light half, white on the dark. */
function cell(/** @type {number | null} */ n, /** @type {number | null} */ rate) {
  if (n === null || rate === null) return h('td', { class: 'muted' }, '')
  const td = h('td', { title: `${fmtNum(n)} persons` }, pct(rate))
  td.style.background = `rgba(59, 91, 219, ${(0.08 + 0.84 * rate).toFixed(2)})`
  if (rate > 0.45) td.style.color = '#fff'
  return td
}

/** @param {Cohort[]} cohorts @param {number} weeks */
function cohortTable(cohorts, weeks) {
  const after = Array.from({ length: weeks }, (_, i) => `Week ${i + 1}`)
  const table = h(
    'table',
    { id: 'cohort-table' },
    h('thead', {}, h('tr', {}, ...['Cohort (week of)', 'Persons', ...after].map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      ...(cohorts.length
        ? cohorts.map((c) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, c.week.slice(0, 10)),
              h('td', { 'data-testid': 'persons' }, fmtNum(c.persons)),
              ...c.returned.map((n, i) => cell(n, c.rates[i] ?? null)),
            ),
          )
        : [h('tr', {}, h('td', { colSpan: weeks + 2, class: 'muted' }, 'No persons in these weeks.'))]),
    ),
  )
  // The table scrolls inside its own box at phone width; the box takes the focus so a keyboard scrolls it.
  const scroller = h('div', { role: 'region', 'aria-label': 'Cohort table', tabIndex: 0 }, table)
  scroller.style.overflowX = 'auto'
  return scroller
}

export async function retentionPage() {
  const { params } = hashRoute()
  const start = h('input', {
    id: 'retention-start',
    name: 'start',
    placeholder: 'any event',
    value: params.get('start') || '',
  })
  const back = h('input', {
    id: 'retention-return',
    name: 'return',
    placeholder: 'any event',
    value: params.get('return') || '',
  })
  const weeks = choiceSelect(
    { id: 'retention-weeks', name: 'weeks' },
    ['4', '8', '12'].map((w) => [w, `${w} weeks`]),
    params.get('weeks') || '8',
  )
  const period = choiceSelect(
    { id: 'retention-period', name: 'period' },
    [
      ['4w', 'Last 4 weeks'],
      ['8w', 'Last 8 weeks'],
      ['12w', 'Last 12 weeks'],
    ],
    params.get('period') || '8w',
  )
  const env = envSelect({ id: 'retention-env', value: params.get('env') })
  const box = h('div', { 'aria-live': 'polite' })
  const current = stillCurrent()
  const load = async () => {
    const values = { start: start.value.trim(), return: back.value.trim(), weeks: weeks.value, period: period.value }
    setHashParams({ ...values, env: env.value })
    const d = await api('GET', '/retention-cohorts' + qs({ ...values, environment: env.value }))
    if (!current()) return
    box.replaceChildren(panel('Persons back, by week after their first', cohortTable(d.cohorts, d.weeks)))
  }
  const form = h(
    'form',
    {
      class: 'panel row',
      id: 'retention-form',
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        void load().catch((err) => box.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message)))
      },
    },
    h('label', {}, 'First event', start),
    h('label', {}, 'Return event', back),
    h('label', {}, 'Weeks after', weeks),
    h('label', {}, 'Cohorts', period),
    h('label', {}, 'Key type', env),
    h('button', { type: 'submit', id: 'retention-apply' }, 'Show retention'),
  )
  render(h('h1', {}, 'Retention'), form, box)
  await load()
}
