// Funnels and Retention (U15, U18) against a direct count of the same events in the test, on a generated
// data set made to be tricky: duplicate rows (a retried insert, the same week written by two inserts),
// anonymous ids linked to known ones (some linked twice, the latest link winning, some ids never linked),
// both environments under one user id, steps at the same millisecond, a step exactly one window after
// step 1 and one millisecond more, events at the period's bounds, persons first seen before the period,
// reads longer than 2^31 ticks and an event that is two steps. Funnels are compared on 18.16 too (U31). The reads go through person_weeks and hashed persons (U23); the count here reads the rows as
// inserted, so any difference between the two is a wrong answer.
import t, { type Test } from 'tap'
import { onBothVersions, type VersionedDatabase } from '../../../../test/support/clickhouse-versions.js'
import { personRows } from '../../../../test/support/person-rows.js'
import { FunnelQueries, funnelClock, toFunnel, type FunnelSpec } from './funnels-queries.js'
import { RetentionQueries, toRetention, type RetentionSpec } from './retention-queries.js'

type Env = 'live' | 'test'
interface Ev {
  user: string
  env: Env
  event: string
  ms: number
  plan: string
}
interface Link {
  env: Env
  anon: string
  user: string
  ms: number
}

const DAY = 86_400_000
const WEEK_S = 7 * 86_400
const START = Date.UTC(2024, 3, 1) // a Monday
const NAMES = ['view', 'signup', 'buy']

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
  }
}

function dataSet(): { events: Ev[]; links: Link[] } {
  const r = random(7)
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!
  const events: Ev[] = []
  const links: Link[] = []
  for (let p = 0; p < 60; p++) {
    const user = `user_${p}`
    const anon = `anon_${p}`
    const first = START + Math.floor(r() * 70) * DAY + Math.floor(r() * DAY)
    for (let i = 0; i < 2 + Math.floor(r() * 10); i++) {
      const ms = first + Math.floor(r() * 5) * pick([1, DAY, 7 * DAY]) + Math.floor(r() * 3)
      events.push({
        user: r() < 0.3 ? anon : user,
        env: r() < 0.15 ? 'test' : 'live',
        event: pick(NAMES),
        ms,
        plan: pick(['a', 'b']),
      })
    }
    if (p % 3 === 0) links.push({ env: 'live', anon, user, ms: first + DAY })
    // A second link of the same anonymous id to another person: the later one wins (H50).
    if (p % 9 === 0) links.push({ env: 'live', anon, user: `user_${p + 1}`, ms: first + 2 * DAY })
    // Window edges: a signup exactly one day after a view, a buy one day and 1 ms after it.
    if (p % 5 === 0) {
      events.push({ user, env: 'live', event: 'view', ms: first, plan: 'a' })
      events.push({ user, env: 'live', event: 'signup', ms: first + DAY, plan: 'a' })
      events.push({ user, env: 'live', event: 'buy', ms: first + 2 * DAY + 1, plan: 'a' })
    }
  }
  return { events, links }
}

/** Each id's person: the user of its latest link in its environment, else itself (H50). */
function personOf(links: Link[]) {
  const latest = new Map<string, Link>()
  for (const l of links) {
    const k = `${l.env}/${l.anon}`
    if ((latest.get(k)?.ms ?? -1) < l.ms) latest.set(k, l)
  }
  return (e: Ev) => latest.get(`${e.env}/${e.user}`)?.user ?? e.user
}

const weekOf = (ms: number) => {
  const s = Math.floor(ms / 1000) + 3 * 86_400
  return s - (s % WEEK_S) - 3 * 86_400
}

/** windowFunnel's level of one person's (tick, step) pairs: ties in step order, the window inclusive. */
function level(marks: Array<[number, number]>, steps: number, window: number): number {
  const firstOf: Array<number | undefined> = new Array(steps)
  let best = 0
  for (const [tick, step] of marks.sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    if (step === 0) firstOf[0] = tick
    else if (firstOf[step - 1] !== undefined && tick <= firstOf[step - 1]! + window) firstOf[step] = firstOf[step - 1]
    for (let k = best; k < steps && firstOf[k] !== undefined; k++) best = k + 1
  }
  return best
}

function expectedFunnel(events: Ev[], person: (e: Ev) => string, f: FunnelSpec) {
  const { baseMs, tickMs, window } = funnelClock(f)
  const secondOf = (ms: number) => Math.floor(ms / 1000)
  const marks = new Map<string, Array<[number, number]>>()
  for (const e of events) {
    if (f.environment && e.env !== f.environment) continue
    const s = secondOf(e.ms)
    if (s < secondOf(f.from.getTime()) || s >= secondOf(f.to.getTime() + f.windowMs)) continue
    f.steps.forEach((step, i) => {
      const matches = step.event === e.event && (!step.filter || e.plan === step.filter.value)
      if (!matches || (i === 0 && e.ms >= f.to.getTime())) return
      const list = marks.get(person(e)) ?? marks.set(person(e), []).get(person(e))!
      list.push([Math.floor((e.ms - baseMs) / tickMs), i])
    })
  }
  const levels = [...marks.values()].map((m) => level(m, f.steps.length, window))
  const row = Object.fromEntries(f.steps.map((_, i) => [`s${i + 1}`, levels.filter((l) => l > i).length]))
  return toFunnel(row, f)
}

function expectedRetention(events: Ev[], person: (e: Ev) => string, r: RetentionSpec, now: number) {
  const bound = Math.floor((r.to.getTime() + (r.weeks + 1) * WEEK_S * 1000) / 1000)
  const byPerson = new Map<string, { cohort?: number; weeks: Set<number> }>()
  for (const e of events) {
    if ((r.environment && e.env !== r.environment) || Math.floor(e.ms / 1000) >= bound) continue
    const p = byPerson.get(person(e)) ?? byPerson.set(person(e), { weeks: new Set() }).get(person(e))!
    const w = weekOf(e.ms)
    if (!r.start || e.event === r.start) p.cohort = Math.min(p.cohort ?? w, w)
    if (!r.return || e.event === r.return) p.weeks.add(w)
  }
  const counts = new Map<string, number>()
  for (const { cohort, weeks } of byPerson.values()) {
    if (cohort === undefined || cohort < weekOf(r.from.getTime()) || cohort >= Math.floor(r.to.getTime() / 1000))
      continue
    for (const w of new Set([...weeks, cohort])) {
      const k = (w - cohort) / WEEK_S
      if (k >= 0 && k <= r.weeks) counts.set(`${cohort}/${k}`, (counts.get(`${cohort}/${k}`) ?? 0) + 1)
    }
  }
  const rows = [...counts].map(([key, persons]) => {
    const [cohort, k] = key.split('/').map(Number)
    return { cohort: cohort!, k: k!, persons }
  })
  return toRetention(rows, r, now)
}

t.test('Funnels and Retention answer what a direct count of the events answers', (t) =>
  onBothVersions(t, 'oracle', cases),
)

async function cases(t: Test, db: VersionedDatabase) {
  const { row, insert, link } = personRows(db.client, db.database, db)
  const { events, links } = dataSet()
  const rows = events.map((e) => ({
    ...row('acc_o', e.user, e.event, new Date(e.ms), { plan: e.plan }),
    environment: e.env,
  }))
  await insert(rows)
  // A retried insert's duplicates, in an insert of their own (a second row of the same weeks too).
  await insert(rows.filter((_, i) => i % 4 === 0))
  await insert([row('acc_x', 'user_1', 'view', new Date(START + DAY))])
  for (const l of links) await link('acc_o', l.anon, l.user, new Date(l.ms))
  const person = personOf(links)
  const now = START + 84 * DAY

  const funnels = new FunnelQueries(db.client, db.database)
  const at = (d: number) => new Date(START + d * DAY)
  const funnelSpecs: FunnelSpec[] = [
    { steps: [{ event: 'view' }, { event: 'signup' }, { event: 'buy' }], windowMs: DAY, from: at(7), to: at(37) },
    { steps: [{ event: 'view' }, { event: 'signup' }, { event: 'buy' }], windowMs: 7 * DAY, from: at(0), to: at(70) },
    {
      steps: [{ event: 'view', filter: { key: 'plan', value: 'a' } }, { event: 'buy' }],
      windowMs: 7 * DAY,
      from: at(7),
      to: at(35),
      environment: 'live',
    },
    { steps: [{ event: 'signup' }, { event: 'view' }], windowMs: 30 * DAY, from: at(0), to: at(60) },
    // One view with plan b is both step 2 and step 3 (its two steps in one tick, in step order).
    {
      steps: [{ event: 'signup' }, { event: 'view' }, { event: 'view', filter: { key: 'plan', value: 'b' } }],
      windowMs: DAY,
      from: at(0),
      to: at(14),
    },
  ]
  for (const f of funnelSpecs) {
    const expected = expectedFunnel(events, person, f)
    t.ok(expected.steps[0]!.persons > 0, 'the funnel has persons to count')
    t.same(await funnels.funnel('acc_o', f), expected, JSON.stringify(f.steps))
  }

  const retention = new RetentionQueries(db.client, db.database)
  const retentionSpecs: RetentionSpec[] = [
    { weeks: 8, from: at(0), to: at(56) },
    { weeks: 4, from: at(14), to: at(42), start: 'signup', return: 'buy' },
    { weeks: 3, from: at(7), to: at(35), return: 'view', environment: 'live' },
    { weeks: 12, from: at(3), to: at(80), start: 'buy', environment: 'test' },
  ]
  for (const r of retentionSpecs) {
    const expected = expectedRetention(events, person, r, now)
    t.ok(expected.cohorts.length > 0, 'the table has cohorts to count')
    t.same(await retention.retention('acc_o', r, now), expected, JSON.stringify({ ...r, from: 0, to: 0 }))
  }
}
