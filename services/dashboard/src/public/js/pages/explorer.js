import { api, errorBox, fmtNum, go, h, hashRoute, panel, qs, render, setHashParams } from '../core.js'
import { chartWidth } from '../charts.js'
import { envSelect, eventsTable } from '../events-table.js'

// ---- explorer ----
/** @param {Date} d */
const toLocalInput = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16)
/** @param {{ event: string, events: number, users: number }[]} rows */
function topChart(rows) {
  const W = chartWidth(600),
    row = 24,
    L = Math.min(180, Math.round(W * 0.42)),
    chars = Math.floor(L / 7)
  const max = Math.max(1, ...rows.map((r) => r.events))
  const svg = h('svg', {
    viewBox: `0 0 ${W} ${Math.max(1, rows.length) * row + 4}`,
    width: W,
    height: Math.max(1, rows.length) * row + 4,
    role: 'img',
    'aria-label': 'Top events',
    id: 'top-chart',
  })
  rows.forEach((r, i) => {
    const w = ((W - L - 60) * r.events) / max
    svg.append(
      h('text', { x: 0, y: i * row + 16 }, r.event.length > chars ? r.event.slice(0, chars - 1) + '…' : r.event),
      h(
        'rect',
        { class: 'bar', x: L, y: i * row + 4, width: Math.max(1, w), height: row - 8 },
        h('title', {}, `${r.event}: ${r.events} events, ${r.users} users`),
      ),
      h('text', { x: L + w + 6, y: i * row + 16 }, fmtNum(r.events)),
    )
  })
  if (!rows.length) svg.append(h('text', { x: 0, y: 16 }, 'No events in this range.'))
  return svg
}

export async function explorerPage() {
  const now = new Date()
  const { params } = hashRoute()
  const from = h('input', {
    type: 'datetime-local',
    name: 'from',
    value: params.get('from') || toLocalInput(new Date(now.getTime() - 7 * 86400000)),
  })
  const to = h('input', {
    type: 'datetime-local',
    name: 'to',
    value: params.get('to') || toLocalInput(new Date(now.getTime() + 3600000)),
  })
  const ev = h('input', { name: 'event', placeholder: 'contains…', value: params.get('event') || '' })
  const user = h('input', { name: 'user_id', placeholder: 'contains…', value: params.get('user') || '' })
  const env = envSelect({ name: 'environment', value: params.get('env') })
  const results = h('div')
  const load = async () => {
    const range = {
      from: new Date(from.value).toISOString(),
      to: new Date(to.value).toISOString(),
      environment: env.value,
    }
    try {
      const [events, top] = await Promise.all([
        api(
          'GET',
          '/events' + qs({ ...range, event_contains: ev.value.trim(), user_contains: user.value.trim(), limit: '100' }),
        ),
        api('GET', '/top-events' + qs(range)),
      ])
      results.replaceChildren(
        panel('Top events', topChart(top)),
        panel(`Recent events (${events.length})`, eventsTable(events)),
      )
    } catch (e) {
      results.replaceChildren(errorBox(e))
    }
  }
  const form = h(
    'form',
    {
      class: 'panel row',
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        setHashParams({
          event: ev.value.trim(),
          user: user.value.trim(),
          env: env.value,
          from: from.value,
          to: to.value,
        })
        void load()
      },
    },
    h('label', {}, 'Event name', ev),
    h('label', {}, 'User id', user),
    h('label', {}, 'Key type', env),
    h('label', {}, 'From', from),
    h('label', {}, 'To', to),
    h('button', { type: 'submit' }, 'Apply'),
    h('span', { class: 'muted' }, 'or open a user: '),
    h('input', {
      placeholder: 'user id',
      'aria-label': 'Open a user by id',
      onkeydown: /** @param {KeyboardEvent & { target: HTMLInputElement }} e */ (e) => {
        if (e.key === 'Enter' && e.target.value.trim()) {
          e.preventDefault()
          go('#/users/' + encodeURIComponent(e.target.value.trim()))
        }
      },
    }),
  )
  render(h('h1', {}, 'Explorer'), form, results)
  await load()
}
