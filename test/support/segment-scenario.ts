// The scenario every real Segment library runs against us (test/clients/segment-*.integration.test.ts),
// and what ClickHouse must hold afterwards: PEOPLE people, each anonymous first (a page and a screen
// view under an anonymous id), then identified with that anonymous id, then a signup, a group call and
// an alias of an older login id. Exact counts per type, every messageId once, and the anonymous-to-known
// merge visible in identity_map and events_by_person (H49-H52).
import type { Test } from 'tap'
import type { TestServices } from './harness.js'

export const PEOPLE = 200
export const GROUPS = 10

/** The ids of person i of a run (`run` keeps runs apart in one account). */
export const personIds = (run: string, i: number) => ({
  anon: `${run}-anon-${i}`,
  user: `${run}-user-${i}`,
  old: `${run}-old-${i}`,
  group: `${run}-group-${i % GROUPS}`,
})

/** Waits until the run's rows (of `people` people) are all projected, then checks them against the messageIds the library sent. */
export async function checkScenario(
  t: Test,
  s: TestServices,
  accountId: string,
  run: string,
  messageIds: Set<string>,
  people = PEOPLE,
): Promise<void> {
  const db = s.database
  const where = `account_id = '${accountId}' AND (user_id LIKE '${run}-%')`
  t.equal(messageIds.size, people * 6, 'the library sent one messageId per call')
  await s.waitForRows(
    `SELECT count() AS c FROM ${db}.events FINAL WHERE ${where} HAVING c >= ${people * 4}`,
    1,
    120_000,
  )
  await s.waitForRows(
    `SELECT count() AS c FROM ${db}.identifies FINAL WHERE ${where} HAVING c >= ${people * 2}`,
    1,
    120_000,
  )
  const byType = await s.query<{ event: string; n: string | number }>(
    `SELECT event, count() AS n FROM ${db}.events FINAL WHERE ${where} GROUP BY event ORDER BY event`,
  )
  t.same(
    byType.map((r) => [r.event, Number(r.n)]),
    [
      ['$group', people],
      ['page_viewed', people],
      ['screen_viewed', people],
      ['signup_completed', people],
    ],
    'exact counts per call type',
  )
  const stored = await s.query<{ message_id: string }>(
    `SELECT message_id FROM ${db}.events FINAL WHERE ${where} UNION ALL SELECT message_id FROM ${db}.identifies FINAL WHERE ${where}`,
  )
  t.equal(stored.length, people * 6, 'one row per call: identifies and aliases in identifies, the rest in events')
  t.same(new Set(stored.map((r) => r.message_id)), messageIds, 'every messageId stored, once')
  const raw = await s.query<{ n: string | number }>(`SELECT count() AS n FROM ${db}.events WHERE ${where}`)
  t.comment(`events rows before de-duplication: ${raw[0]!.n}`)
  const links = await settledCount(
    s,
    `SELECT count() AS n FROM ${db}.identity_map WHERE account_id = '${accountId}' AND id LIKE '${run}-%' AND person_id = replaceRegexpOne(replaceRegexpOne(id, '-anon-', '-user-'), '-old-', '-user-')`,
    people * 2,
  )
  t.equal(links, people * 2, 'each anonymous id and each aliased id maps to its person')
  const persons = await s.query<{ n: string | number; ids: string | number }>(
    `SELECT uniqExact(person_id) AS n, uniqExact(user_id) AS ids FROM ${db}.events_by_person WHERE ${where} AND event IN ('page_viewed', 'screen_viewed', 'signup_completed')`,
  )
  t.same(
    [Number(persons[0]!.n), Number(persons[0]!.ids)],
    [people, people * 2],
    'anonymous views and the signup count one person each (two ids each)',
  )
  const groups = await settledCount(
    s,
    `SELECT count() AS n FROM ${db}.groups_view WHERE account_id = '${accountId}' AND group_id LIKE '${run}-group-%'`,
    GROUPS,
  )
  t.equal(groups, GROUPS, 'the groups')
}

/**
 * A count over a table that materialized views fill (identity_links, groups), once it is `want` or after
 * 30 s. ClickHouse commits an insert's part of the source table and the parts of its views one after the
 * other, so a read just after the last source rows appear can miss the last block's view rows (CI read
 * 398 of 400 links once, every source row stored).
 */
async function settledCount(s: TestServices, query: string, want: number): Promise<number> {
  const start = Date.now()
  for (;;) {
    const [row] = await s.query<{ n: string | number }>(query)
    const n = Number(row?.n ?? 0)
    if (n === want || Date.now() - start > 30_000) return n
    await new Promise((r) => setTimeout(r, 200))
  }
}
