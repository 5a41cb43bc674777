import { api, errorBox, fmtNum, h, hashRoute, panel, qs, render, stillCurrent } from '../core.js'
import { chartFrame, chartWidth } from '../charts.js'
import { envSelect } from '../events-table.js'

// ---- trends: one event (or all) over time, compared, broken down and filtered (U13, U14) ----
/** GET /api/trends's answer (docs/api.md). @typedef {{ buckets: string[], series: { value: string, counts: number[] }[], previous?: { buckets: string[], series: { value: string, counts: number[] }[] } }} Trend */

// Ten values, $other and the previous period stay apart: colours at least 3:1 against white (axe).
const COLOURS = ['#3b5bdb', '#2b8a3e', '#c92a2a', '#8b5a00', '#862e9c', '#0b7285', '#d6336c', '#5c7cfa', '#495057']
const colour = (/** @type {number} */ i) => COLOURS[i % COLOURS.length]
const FILTERS_MAX = 5
/** @param {Date} d */
const toLocalInput = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16)
/** @param {string} iso @param {string} interval */
const bucketLabel = (iso, interval) =>
  interval === 'hour' ? new Date(iso).toISOString().slice(0, 16).replace('T', ' ') : iso.slice(0, 10)
/** @param {{ value: string }} s */
const seriesName = (s) => s.value || 'events'
/** @param {{ counts: number[] }[]} series @param {number} i */
const sumAt = (series, i) => series.reduce((a, s) => a + (s.counts[i] ?? 0), 0)

/**
 * The trend as lines, hand-drawn SVG like the usage chart (U14); the table below holds the same numbers.
 * @param {Trend} trend
 * @param {string} interval
 */
function lineChart(trend, interval) {
  const W = chartWidth(1000),
    H = 200,
    P = 40
  const prev = trend.previous ? trend.buckets.map((_, i) => sumAt(trend.previous?.series ?? [], i)) : []
  const max = Math.max(1, ...prev, ...trend.series.flatMap((s) => s.counts))
  const n = trend.buckets.length
  const x = (/** @type {number} */ i) => P + (n > 1 ? (i * (W - P - 8)) / (n - 1) : 0)
  const y = (/** @type {number} */ v) => H - (v / max) * (H - 12)
  const svg = chartFrame({
    W,
    H,
    P,
    max,
    id: 'trend-chart',
    label: 'Events over time (the table below has the numbers)',
  })
  /** @param {number[]} counts @param {string} stroke @param {string} name @param {string} [dash] */
  const line = (counts, stroke, name, dash) => {
    const g = h('g', {}, h('title', {}, name))
    for (let i = 1; i < counts.length; i++)
      g.append(
        h('line', {
          x1: x(i - 1),
          y1: y(counts[i - 1] ?? 0),
          x2: x(i),
          y2: y(counts[i] ?? 0),
          stroke,
          'stroke-width': 2,
          'stroke-dasharray': dash,
        }),
      )
    if (counts.length === 1)
      g.append(h('rect', { x: x(0) - 2, y: y(counts[0] ?? 0) - 2, width: 4, height: 4, fill: stroke }))
    svg.append(g)
  }
  if (prev.length) line(prev, '#667085', 'Previous period (total)', '5 4')
  trend.series.forEach((s, i) => line(s.counts, colour(i), seriesName(s)))
  for (const i of [0, n - 1])
    if (n && (i === 0 || n > 1))
      svg.append(h('text', { x: i === 0 ? P : W - 80, y: H + 14 }, bucketLabel(trend.buckets[i] ?? '', interval)))
  return svg
}

/** @param {Trend} trend */
function legend(trend) {
  return h(
    'p',
    { class: 'legend' },
    ...trend.series.map((s, i) => {
      const sw = h('span', { class: 'sw' })
      sw.style.background = colour(i)
      return h('span', {}, sw, seriesName(s))
    }),
    trend.previous ? h('span', {}, '- - previous period (total)') : '',
  )
}

/** The numbers of the chart, one row per bucket: its accessible alternative. @param {Trend} trend @param {string} interval */
function numbersTable(trend, interval) {
  const heads = ['Time', ...trend.series.map(seriesName), ...(trend.previous ? ['Previous period (total)'] : [])]
  const table = h(
    'table',
    { id: 'trend-table' },
    h('caption', { class: 'muted' }, 'Events per ' + interval),
    h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      ...trend.buckets.map((b, i) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, bucketLabel(b, interval)),
          ...trend.series.map((s) => h('td', {}, fmtNum(s.counts[i] ?? 0))),
          trend.previous ? h('td', {}, fmtNum(sumAt(trend.previous.series, i))) : '',
        ),
      ),
    ),
  )
  // A wide breakdown scrolls inside its own box (focusable, so a keyboard can scroll it) instead of the page.
  const box = h('div', { tabIndex: 0, role: 'region', 'aria-label': 'Trend numbers' }, table)
  box.style.overflowX = 'auto'
  return box
}

/** @param {string} key @param {string} value */
function filterRow(key, value) {
  const row = h(
    'div',
    { class: 'row trend-filter' },
    h('label', {}, 'Property', h('input', { name: 'filter-key', value: key, placeholder: 'plan' })),
    h('label', {}, 'equals', h('input', { name: 'filter-value', value, placeholder: 'pro' })),
    h('button', { type: 'button', class: 'secondary', onclick: () => row.remove() }, 'Remove filter'),
  )
  return row
}

/** @param {URLSearchParams} params */
function controls(params) {
  const now = new Date()
  const select = (/** @type {string} */ name, /** @type {string[][]} */ options, /** @type {string} */ value) => {
    const s = h('select', { name }, ...options.map(([v, t]) => h('option', { value: v }, t)))
    s.value = options.some(([v]) => v === value) ? value : (options[0]?.[0] ?? '')
    return s
  }
  return {
    event: h('input', {
      name: 'event',
      list: 'trend-events',
      placeholder: 'all events',
      value: params.get('event') || '',
    }),
    period: select(
      'period',
      [
        ['24h', 'Last 24 hours'],
        ['7d', 'Last 7 days'],
        ['30d', 'Last 30 days'],
        ['custom', 'Custom'],
      ],
      params.get('period') || '7d',
    ),
    from: h('input', {
      type: 'datetime-local',
      name: 'from',
      value: params.get('from') || toLocalInput(new Date(now.getTime() - 7 * 86400000)),
    }),
    to: h('input', { type: 'datetime-local', name: 'to', value: params.get('to') || toLocalInput(now) }),
    interval: select(
      'interval',
      [
        ['day', 'Day'],
        ['hour', 'Hour'],
        ['week', 'Week'],
      ],
      params.get('interval') || 'day',
    ),
    compare: h('input', { type: 'checkbox', name: 'compare', checked: params.get('compare') === '1' }),
    // A property of the events (U26) or a trait of their persons (U27): one key, of the kind picked.
    breakdownKind: select(
      'breakdown_kind',
      [
        ['property', 'Property'],
        ['trait', 'User trait'],
      ],
      params.get('breakdown_trait') ? 'trait' : 'property',
    ),
    breakdown: h('input', {
      name: 'breakdown',
      placeholder: 'a key, e.g. plan',
      value: params.get('breakdown_trait') || params.get('breakdown') || '',
    }),
    env: envSelect({ name: 'environment', value: params.get('env') }),
    filters: h(
      'div',
      {},
      ...params.getAll('filter').map((f) => filterRow(f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1))),
    ),
  }
}

/** @param {ReturnType<typeof controls>} c */
function filtersOf(c) {
  return [...c.filters.querySelectorAll('.trend-filter')].flatMap((row) => {
    const [k, v] = [...row.querySelectorAll('input')].map((i) => i.value.trim())
    return k ? [`${k}=${v ?? ''}`] : []
  })
}

/** The page's state as query parameters: the hash's (env as the other pages name it) or the API's. @param {ReturnType<typeof controls>} c @param {boolean} forApi */
function queryOf(c, forApi) {
  const custom = c.period.value === 'custom'
  const time = (/** @type {HTMLInputElement} */ i) => (forApi ? new Date(i.value).toISOString() : i.value)
  const p = new URLSearchParams(
    qs({
      event: c.event.value.trim(),
      period: c.period.value,
      from: custom ? time(c.from) : '',
      to: custom ? time(c.to) : '',
      interval: c.interval.value,
      compare: c.compare.checked ? '1' : '',
      [c.breakdownKind.value === 'trait' ? 'breakdown_trait' : 'breakdown']: c.breakdown.value.trim(),
      [forApi ? 'environment' : 'env']: c.env.value,
    }).slice(1),
  )
  for (const f of filtersOf(c)) p.append('filter', f)
  return p
}

export async function trendsPage() {
  const c = controls(hashRoute().params)
  const results = h('div', { 'aria-live': 'polite' })
  const events = h('datalist', { id: 'trend-events' })
  const customBox = h('span', { class: 'row' }, h('label', {}, 'From', c.from), h('label', {}, 'To', c.to))
  const showCustom = () => (customBox.hidden = c.period.value !== 'custom')
  c.period.addEventListener('change', showCustom)
  showCustom()
  const addFilter = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        if (c.filters.children.length < FILTERS_MAX) c.filters.append(filterRow('', ''))
        const key = c.filters.querySelector('.trend-filter:last-child input')
        if (key instanceof HTMLInputElement) key.focus()
      },
    },
    'Add filter',
  )
  const current = stillCurrent()
  const load = async () => {
    const query = queryOf(c, false).toString()
    // The view lives in the address, so a reload or a shared link shows the same trend.
    history.replaceState(null, '', `#/trends${query ? '?' + query : ''}`)
    const apiQuery = queryOf(c, true)
    try {
      /** @type {Trend} */
      const trend = await api('GET', '/trends?' + apiQuery)
      if (!current()) return
      apiQuery.set('format', 'csv')
      results.replaceChildren(
        panel(
          c.event.value.trim() || 'All events',
          lineChart(trend, c.interval.value),
          legend(trend),
          h(
            'p',
            {},
            h('a', { id: 'trend-csv', href: '/api/trends?' + apiQuery, download: 'trend.csv' }, 'Download CSV'),
          ),
          numbersTable(trend, c.interval.value),
        ),
      )
    } catch (e) {
      if (current()) results.replaceChildren(errorBox(e))
    }
  }
  const form = h(
    'form',
    {
      class: 'panel',
      id: 'trend-form',
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        void load()
      },
    },
    h(
      'div',
      { class: 'row' },
      h('label', {}, 'Event', c.event),
      h('label', {}, 'Period', c.period),
      customBox,
      h('label', {}, 'Interval', c.interval),
      h('label', {}, 'Breakdown by', c.breakdownKind),
      h('label', {}, 'Breakdown key', c.breakdown),
      h('label', {}, 'Key type', c.env),
      h('label', {}, c.compare, ' Compare with the previous period'),
    ),
    c.filters,
    h('div', { class: 'row' }, addFilter, h('button', { type: 'submit' }, 'Apply')),
    events,
  )
  render(h('h1', {}, 'Trends'), form, results)
  void api('GET', '/top-events' + qs({ from: new Date(Date.now() - 30 * 86400000).toISOString(), limit: '100' }))
    .then((/** @type {{ event: string }[]} */ top) =>
      events.replaceChildren(...top.map((t) => h('option', { value: t.event }))),
    )
    .catch(() => undefined)
  await load()
}
