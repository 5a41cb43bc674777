// ---- funnels: persons per step within a conversion window, with drop-off (U15) ----
import { api, fmtNum, h, hashRoute, panel, qs, render, setHashParams, stillCurrent } from '../core.js'
import { chartWidth } from '../charts.js'
import { envSelect } from '../events-table.js'

/** @typedef {{ event: string, filter?: { key: string, value: string }, persons: number, conversion: number, dropoff: number, dropoff_rate: number }} FunnelStep */

const MAX_STEPS = 5
/** @param {number} x */
export const pct = (x) => `${(100 * x).toFixed(1)}%`

/**
 * A select of `choices` ([value, label]) showing `value`.
 * @param {Record<string, string>} attrs @param {[string, string][]} choices @param {string} value
 */
export function choiceSelect(attrs, choices, value) {
  const sel = h('select', attrs, ...choices.map(([v, label]) => h('option', { value: v }, label)))
  sel.value = value
  return sel
}

/** @param {FunnelStep[]} steps */
function funnelChart(steps) {
  const W = chartWidth(900),
    H = 200,
    top = 30
  const max = Math.max(1, steps[0]?.persons || 0)
  const bw = W / steps.length
  const svg = h('svg', {
    viewBox: `0 0 ${W} ${H + 36}`,
    width: '100%',
    role: 'img',
    'aria-label': `Persons per step: ${steps.map((s, i) => `step ${i + 1} ${s.persons}`).join(', ')}`,
    id: 'funnel-chart',
  })
  svg.append(h('line', { class: 'axis', x1: 0, y1: top + H - 30, x2: W, y2: top + H - 30 }))
  steps.forEach((s, i) => {
    const bh = (s.persons / max) * (H - 30)
    const x = i * bw + 8
    svg.append(
      h(
        'g',
        {},
        h('title', {}, `${s.event}: ${s.persons} persons, ${pct(s.conversion)} of step 1`),
        h('rect', { class: 'bar', x, y: top + H - 30 - bh, width: Math.max(4, bw - 16), height: bh }),
        h('text', { x, y: top + H - 36 - bh }, `${fmtNum(s.persons)} (${pct(s.conversion)})`),
        h('text', { x, y: top + H - 12 }, `${i + 1}. ${s.event.slice(0, 24)}`),
      ),
    )
  })
  return svg
}

/** @param {FunnelStep[]} steps */
const funnelTable = (steps) =>
  h(
    'table',
    { id: 'funnel-table' },
    h(
      'thead',
      {},
      h('tr', {}, ...['Step', 'Event', 'Persons', 'Of step 1', 'Drop-off'].map((t) => h('th', { scope: 'col' }, t))),
    ),
    h(
      'tbody',
      {},
      ...steps.map((s, i) =>
        h(
          'tr',
          {},
          h('td', {}, String(i + 1)),
          h(
            'td',
            { class: 'clip', title: s.event },
            s.event,
            s.filter ? h('span', { class: 'muted' }, ` where ${s.filter.key} = ${s.filter.value}`) : null,
          ),
          h('td', { 'data-testid': 'persons' }, fmtNum(s.persons)),
          h('td', {}, pct(s.conversion)),
          h('td', {}, i === 0 ? '—' : `${fmtNum(s.dropoff)} (${pct(s.dropoff_rate)})`),
        ),
      ),
    ),
  )

/** The step inputs, filled from the address: an event name and an optional key=value filter each. */
function stepInputs(/** @type {URLSearchParams} */ params) {
  const rows = []
  for (let i = 1; i <= MAX_STEPS; i++) {
    const event = h('input', { id: `funnel-step${i}`, name: `step${i}`, value: params.get(`step${i}`) || '' })
    event.required = i <= 2
    const where = h('input', {
      id: `funnel-where${i}`,
      name: `where${i}`,
      placeholder: 'key=value',
      value: params.get(`where${i}`) || '',
    })
    rows.push(
      h(
        'div',
        { class: 'row' },
        h('label', {}, `Step ${i}${i > 2 ? ' (optional)' : ''}`, event),
        h('label', {}, 'where', where),
      ),
    )
  }
  return rows
}

export async function funnelsPage() {
  const { params } = hashRoute()
  const windowSelect = choiceSelect(
    { id: 'funnel-window', name: 'window' },
    [
      ['1h', '1 hour'],
      ['1d', '1 day'],
      ['7d', '7 days'],
      ['14d', '14 days'],
      ['30d', '30 days'],
    ],
    params.get('window') || '7d',
  )
  const period = choiceSelect(
    { id: 'funnel-period', name: 'period' },
    [
      ['24h', 'Last 24 hours'],
      ['7d', 'Last 7 days'],
      ['30d', 'Last 30 days'],
    ],
    params.get('period') || '7d',
  )
  const env = envSelect({ id: 'funnel-env', value: params.get('env') })
  const box = h('div', { 'aria-live': 'polite' })
  const current = stillCurrent()
  /** @param {HTMLFormElement} form */
  const load = async (form) => {
    /** @type {Record<string, string>} */
    const values = {}
    for (const [k, v] of new FormData(form)) if (String(v).trim()) values[k] = String(v).trim()
    setHashParams({ ...values, env: env.value })
    const d = await api('GET', '/funnels' + qs({ ...values, environment: env.value }))
    if (!current()) return
    /** @type {FunnelStep[]} */
    const steps = d.steps
    box.replaceChildren(panel('Persons per step', funnelChart(steps), funnelTable(steps)))
  }
  const form = h(
    'form',
    {
      class: 'panel',
      id: 'funnel-form',
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        void load(form).catch((err) => box.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message)))
      },
    },
    ...stepInputs(params),
    h(
      'div',
      { class: 'row' },
      h('label', {}, 'Conversion window', windowSelect),
      h('label', {}, 'Period', period),
      h('label', {}, 'Key type', env),
      h('button', { type: 'submit', id: 'funnel-apply' }, 'Show funnel'),
    ),
    h('p', { class: 'muted hint' }, 'Persons are counted across the anonymous → known switch.'),
  )
  render(h('h1', {}, 'Funnels'), form, box)
  if (params.get('step1') && params.get('step2')) await load(form)
}
