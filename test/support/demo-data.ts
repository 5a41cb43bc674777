// A demo account's traffic for the screenshots (screenshots.ts): a small product's week, as the
// bodies of POST /v1/events (docs/api.md), deterministic so two runs draw the same pages. 500 events
// (under the hobby plan's 1,000 a month, so Usage shows the plan's bar half full) from 12 people in
// working hours, with property values of several types, and one identify a person with their traits.

const NAMES =
  'Ada Lovelace, Grace Hopper, Alan Turing, Edsger Dijkstra, Barbara Liskov, Donald Knuth, Margaret Hamilton, Ken Thompson, Radia Perlman, John Backus, Frances Allen, Tim Berners-Lee'
const PLANS = ['business', 'team', 'free']
/** [user id suffix, name, plan] of each person. */
const PEOPLE = NAMES.split(', ').map(
  (name, k) => [name.split(' ')[0]!.toLowerCase(), name, PLANS[(k * 7) % 3]!] as const,
)

/** The person whose page is shot. */
export const DEMO_USER = 'user_ada'

/** Event names, the first the most frequent, and the properties each carries. */
const EVENTS: Array<[string, (i: number) => Record<string, unknown>]> = [
  [
    'page_viewed',
    (i) => ({ path: ['/', '/pricing', '/docs', '/blog/launch'][i % 4], referrer: 'https://news.example' }),
  ],
  ['search_performed', (i) => ({ query: ['funnels', 'retention', 'export csv'][i % 3], results: i % 17 })],
  ['project_created', (i) => ({ template: ['blank', 'saas', 'mobile'][i % 3], private: i % 2 === 0 })],
  ['report_exported', (i) => ({ format: i % 2 ? 'csv' : 'pdf', rows: 100 + i })],
  ['invite_sent', (i) => ({ invitees: 1 + (i % 4), role: 'editor' })],
  ['checkout_completed', (i) => ({ plan: ['team', 'business'][i % 2], amount: 49 + (i % 3) * 50, currency: 'EUR' })],
  ['signup_completed', (i) => ({ source: ['landing_page', 'invite', 'ad'][i % 3] })],
]

const iso = (ms: number) => new Date(ms).toISOString()
const DAY = 86_400_000

/**
 * Event `i`'s time: one of the last six days, in working hours (8-20 UTC, most around 14, the sum of
 * two uniform parts), so Usage's hourly chart shows days and nights; never after `now`.
 */
function eventTime(now: number, i: number): number {
  const midnight = now - (now % DAY)
  const j = Math.floor(i / 6)
  const hour = 8 + Math.floor((6 * ((j * 7919) % 97)) / 97) + Math.floor((7 * ((j * 104_729) % 89)) / 89)
  const t = midnight - (i % 6) * DAY + hour * 3_600_000 + ((i * 7919) % 60) * 60_000 + ((i * 104_729) % 60) * 1000
  return t > now - 60_000 ? t - DAY : t
}

export interface DemoBatch {
  sent_at: string
  events: Array<Record<string, unknown> & { type: 'event' | 'identify' }>
}

/** Batches of at most 100 items: first the identifies, then the events over the week before `now`. */
export function demoBatches(now: number): DemoBatch[] {
  const items: DemoBatch['events'] = PEOPLE.map(([id, name, plan], k) => ({
    type: 'identify',
    user: { id: `user_${id}` },
    traits: { email: `${id}@example.com`, name, plan, seats: 1 + (k % 9), verified: k % 3 !== 0 },
    timestamp: iso(now - 7 * DAY + k * 3_600_000),
  }))
  for (let i = 0; i < 500; i++) {
    // Squares skew both the names and the people, as real traffic is.
    const [name, props] = EVENTS[Math.floor(((i * 7919) % 100) ** 2 / 1430)]!
    const [id] = PEOPLE[Math.floor(((i * 104_729) % 97) ** 2 / 785)]!
    items.push({
      type: 'event',
      event: name,
      user: { id: `user_${id}` },
      properties: props(i),
      context: { library: { name: '@acme/analytics', version: '3.1.0' }, locale: 'en-GB' },
      timestamp: iso(eventTime(now, i)),
    })
  }
  const out: DemoBatch[] = []
  for (let i = 0; i < items.length; i += 100) out.push({ sent_at: iso(now), events: items.slice(i, i + 100) })
  return out
}
