// An account's billed events as usage_monthly_view counts them (H5, H83), every month summed. The view's
// table is written by a materialized view after the events table, not atomically with it, so a test that
// has just seen an account's events rows waits for their usage (waitForBilled) before it asserts a count.
import { waitUntil, type TestServices } from './harness.js'

type Queries = Pick<TestServices, 'query'>

export async function billedEvents(s: Queries, database: string, accountId: string): Promise<number> {
  const [row] = await s.query<{ n: string }>(
    `SELECT sum(events) AS n FROM ${database}.usage_monthly_view WHERE account_id = '${accountId}'`,
  )
  return Number(row?.n ?? 0)
}

/** Waits until the account's usage counts at least `events`; the caller then asserts the exact figure. */
export function waitForBilled(s: Queries, database: string, accountId: string, events: number, what: string) {
  return waitUntil(async () => (await billedEvents(s, database, accountId)) >= events, 15_000, what)
}
