// ---- refused: the account's refused requests by error code over time, and the latest refused bodies (U16, H57) ----
// Tables rather than a chart: a few codes over a few buckets read best as numbers, and a table works at
// phone width and with a screen reader without more code (U16).
import { api, fmtNum, fmtTime, h, hashRoute, panel, qs, render, setHashParams, stillCurrent } from '../core.js'
import { envSelect } from '../events-table.js'

/** @typedef {{ time: string, code: string, count: number }} RefusedCount */
/** @typedef {{ at: string, code: string, message: string, endpoint: string, environment: string, body: string }} RefusedSample */
/** @typedef {{ counts: RefusedCount[], totals: Array<{ code: string, count: number }>, samples: RefusedSample[], interval: string }} Refused */

/** How much of a body the table shows; the whole stored body (at most 2,048 characters) is in its details.
 * Cells wrap anywhere (style.css), so a body without spaces still fits a phone. */
const BODY_PREVIEW = 160

/**
 * @param {string[]} heads
 * @param {HTMLElement[]} rows
 * @param {string} id
 */
const table = (heads, rows, id) =>
  h(
    'table',
    { id, class: 'cards' },
    h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...rows),
  )

/** @param {RefusedSample} s */
const sampleRow = (s) =>
  h(
    'tr',
    {},
    h('td', { 'data-label': 'Time' }, fmtTime(s.at)),
    h('td', { class: 'mono', 'data-label': 'Code' }, s.code),
    h('td', { 'data-label': 'Message' }, s.message),
    h('td', { class: 'mono', 'data-label': 'Endpoint' }, `${s.endpoint} (${s.environment})`),
    h(
      'td',
      { class: 'mono', 'data-label': 'Body' },
      s.body.length > BODY_PREVIEW
        ? h('details', {}, h('summary', {}, `${s.body.slice(0, BODY_PREVIEW)}…`), h('pre', { tabindex: '0' }, s.body))
        : s.body || '(empty)',
    ),
  )

/** What the page is for, shown when the period has nothing. */
const emptyState = () =>
  h(
    'div',
    { class: 'panel', id: 'refused-empty' },
    h('h2', {}, 'No refused requests in this period'),
    h(
      'p',
      {},
      'When the ingest API refuses a request sent with one of your keys (an invalid event, a body too large, a quota reached), ',
      'it is counted here by error code, with the last few refused bodies, so you can see why events are not arriving. ',
      'Keys are removed from the bodies kept, and they are kept for 7 days.',
    ),
    h(
      'p',
      { class: 'muted' },
      'Requests without a valid key are not shown: they cannot be told apart from anyone else’s.',
    ),
  )

/** @param {Refused} d */
function refusedView(d) {
  if (d.totals.length === 0 && d.samples.length === 0) return emptyState()
  const byTime = [...d.counts].reverse()
  return h(
    'div',
    {},
    panel(
      'Refused by error code',
      table(
        ['Code', 'Requests'],
        d.totals.map((c) =>
          h(
            'tr',
            {},
            h('td', { class: 'mono', 'data-label': 'Code' }, c.code),
            h('td', { 'data-label': 'Requests' }, fmtNum(c.count)),
          ),
        ),
        'refused-totals',
      ),
    ),
    panel(
      `Over time (per ${d.interval}, latest first)`,
      table(
        ['From', 'Code', 'Requests'],
        byTime.map((c) =>
          h(
            'tr',
            {},
            h('td', { 'data-label': 'From' }, fmtTime(c.time)),
            h('td', { class: 'mono', 'data-label': 'Code' }, c.code),
            h('td', { 'data-label': 'Requests' }, fmtNum(c.count)),
          ),
        ),
        'refused-counts',
      ),
    ),
    panel(
      'Latest refused requests',
      d.samples.length
        ? table(['Time', 'Code', 'Message', 'Endpoint', 'Body'], d.samples.map(sampleRow), 'refused-samples')
        : h('p', { class: 'muted' }, 'No sample kept in this period.'),
    ),
  )
}

export async function refusedPage() {
  const { params } = hashRoute()
  const period = h(
    'select',
    { id: 'refused-period', name: 'period' },
    ...[
      ['24h', 'Last 24 hours'],
      ['7d', 'Last 7 days'],
    ].map(([v, label]) => h('option', { value: v, selected: params.get('period') === v }, label)),
  )
  const interval = h(
    'select',
    { id: 'refused-interval', name: 'interval' },
    ...['hour', 'minute'].map((v) => h('option', { value: v, selected: params.get('interval') === v }, `Per ${v}`)),
  )
  const env = envSelect({ id: 'refused-env', value: params.get('env') })
  const box = h('div', { 'aria-live': 'polite' })
  const current = stillCurrent()
  const load = async () => {
    // Minute buckets are for the last 24 hours only (docs/api.md).
    if (period.value === '7d') interval.value = 'hour'
    setHashParams({ period: period.value, interval: interval.value, env: env.value })
    const d = await api(
      'GET',
      '/refused' + qs({ period: period.value, interval: interval.value, environment: env.value }),
    )
    if (!current()) return
    box.replaceChildren(refusedView(d))
  }
  for (const s of [period, interval, env]) s.addEventListener('change', () => void load())
  render(
    h('h1', {}, 'Refused requests'),
    h(
      'form',
      { class: 'panel row', onsubmit: (/** @type {SubmitEvent} */ e) => e.preventDefault() },
      h('label', {}, 'Period', period),
      h('label', {}, 'Buckets', interval),
      h('label', {}, 'Key type', env),
    ),
    box,
  )
  await load()
}
