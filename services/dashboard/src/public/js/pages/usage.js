import {
  api,
  errorBox,
  fmtNum,
  fmtTime,
  h,
  hashRoute,
  panel,
  qs,
  render,
  setHashParams,
  state,
  stillCurrent,
} from '../core.js'
import { chartFrame, chartWidth } from '../charts.js'

// ---- usage ----
/** @param {number} value @param {number} limit */
function meter(value, limit) {
  const bar = h('div')
  bar.style.width = `${Math.min(100, limit ? (100 * value) / limit : 0)}%`
  return h('div', { class: 'meter' }, bar)
}

/** @param {{ hour: string, live: number, test: number }[]} rows */
function hourlyChart(rows) {
  const W = chartWidth(1000),
    H = 180,
    P = 28
  const max = Math.max(1, ...rows.map((r) => r.live + r.test))
  const bw = (W - P) / Math.max(1, rows.length)
  const svg = chartFrame({ W, H, P, max, id: 'hourly-chart', label: 'Events per hour' })
  rows.forEach((r, i) => {
    const x = P + i * bw
    const hl = (r.live / max) * (H - 10),
      ht = (r.test / max) * (H - 10)
    const tip = h('title', {}, `${new Date(r.hour).toLocaleString()}: ${r.live} live, ${r.test} test`)
    const g = h('g', {}, tip)
    if (r.live) g.append(h('rect', { class: 'bar-live', x, y: H - hl, width: Math.max(1, bw - 1), height: hl }))
    if (r.test) g.append(h('rect', { class: 'bar-test', x, y: H - hl - ht, width: Math.max(1, bw - 1), height: ht }))
    g.append(h('rect', { x, y: 0, width: bw, height: H, fill: 'transparent' }))
    svg.append(g)
    if (new Date(r.hour).getHours() === 0 && x < W - 70 && x > P + 20)
      svg.append(h('text', { x, y: H + 14 }, new Date(r.hour).toLocaleDateString()))
  })
  return svg
}

const REFRESH_MS = 5000
/** The month's count is read again every this many refreshes (a minute). */
const MONTH_EVERY = 12

/**
 * The current month and the twelve before it (UTC, `YYYY-MM`), newest first: the months the selector offers.
 * @param {number} now
 */
function monthKeys(now) {
  const d = new Date(now)
  return Array.from({ length: 13 }, (_, i) =>
    new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - i, 1)).toISOString().slice(0, 7),
  )
}

export async function usagePage() {
  const { params } = hashRoute()
  const months = monthKeys(Date.now())
  const asked = params.get('month') ?? ''
  const select = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'usage-month' },
      ...months.map((m, i) => h('option', { value: i === 0 ? '' : m }, i === 0 ? `This month (${m})` : m)),
    )
  )
  select.value = months.includes(asked) && asked !== months[0] ? asked : ''
  select.onchange = () => {
    setHashParams({ month: select.value })
    void load().catch((e) => box.prepend(errorBox(e)))
  }
  const box = h('div')
  render(
    h('h1', {}, 'Usage'),
    h(
      'div',
      { class: 'panel row' },
      h('label', {}, 'Month', select),
      h('p', { class: 'muted hint' }, 'Events are counted in the month they were received (UTC).'),
    ),
    box,
  )
  const current = stillCurrent()
  /** The last whole answer, whose activity the frequent refresh replaces. @type {any} */
  let last = null
  const load = async () => {
    const month = select.value
    const u = await api('GET', '/usage' + qs({ days: '3', month }))
    if (!current() || month !== select.value) return
    last = u
    draw(u, month)
  }
  const loadActivity = async () => {
    const a = await api('GET', '/usage/activity?days=3')
    if (!current() || !last) return
    last = { ...last, ...a }
    draw(last, select.value)
  }
  /** @param {any} u @param {string} month */
  const draw = (u, month) => {
    const when = month ? `in ${u.month}` : 'this month'
    /** @param {string} id @param {string} title @param {number} value @param {number} limit @param {string} [note] */
    const stat = (id, title, value, limit, note) =>
      h(
        'div',
        { class: 'panel stat', id },
        h('div', { class: 'muted' }, title),
        h(
          'div',
          { class: 'num' },
          h('span', { 'data-testid': 'value' }, fmtNum(value)),
          h('span', { class: 'muted' }, ` / ${fmtNum(limit)}`),
        ),
        meter(value, limit),
        note ? h('div', { class: 'muted' }, note) : null,
      )
    box.replaceChildren(
      h(
        'div',
        { class: 'panel' },
        h('strong', {}, 'Plan: '),
        h('span', { id: 'plan-name' }, u.plan.name),
        ' — ',
        `${fmtNum(u.plan.requests_per_minute)} requests/minute, ${fmtNum(u.plan.events_per_month)} events/month, ${fmtNum(u.plan.emails_per_month)} emails/month. `,
        h(
          'span',
          { class: 'muted' },
          month
            ? `Month ${u.month} ended ${fmtTime(u.resets_at)}.`
            : `Month ${u.month} resets ${fmtTime(u.resets_at)}.`,
        ),
      ),
      h(
        'div',
        { class: 'grid' },
        stat(
          'usage-events',
          `Events ${when} (live keys)`,
          u.events_this_month.live,
          u.events_this_month.limit,
          `${fmtNum(u.events_this_month.test)} of ${fmtNum(u.events_this_month.test_limit)} test-key events (counted apart)`,
        ),
        stat(
          'usage-emails',
          `Emails ${when}`,
          u.emails_this_month.sent,
          u.emails_this_month.limit,
          'No emails are sent yet.',
        ),
        stat(
          'usage-requests',
          'Requests this minute',
          u.requests_this_minute.count,
          u.requests_this_minute.limit,
          'Accepted requests, as projected (a second behind).',
        ),
      ),
      panel(
        'Events per hour, last 3 days',
        h(
          'div',
          { class: 'legend muted' },
          h('span', {}, h('span', { class: 'sw live' }), 'live'),
          h('span', {}, h('span', { class: 'sw test' }), 'test'),
        ),
        hourlyChart(u.events_per_hour),
      ),
    )
  }
  await load()
  // Every 5 s the minute's requests and the hours; the month's count, whose read costs far more (the month's
  // event ids, H83), every minute (U35).
  let ticks = 0
  const timer = setInterval(() => {
    ticks = (ticks + 1) % MONTH_EVERY
    const refresh = ticks === 0 ? load : loadActivity
    refresh().catch((e) => box.prepend(errorBox(e)))
  }, REFRESH_MS)
  state.cleanup.push(() => clearInterval(timer))
}
