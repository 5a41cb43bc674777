// The dashboard scenario's data (`npm run bench -- --only dashboard`, BENCHMARKS.md): one account's
// events, identifies and traits written straight into ClickHouse with INSERT ... SELECT FROM
// numbers(), so ten million events take a minute rather than the hour ingest would. The fill is not
// what is measured; it only has to look like an instrumented product: 50 event names of uneven
// frequency, property keys of several types (string, number, boolean, object, a key only some events
// carry), one identify and five traits per person, an anonymous id on a share of the events (H50),
// spread over 30 days, a tenth of them on test keys.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, sql } from '../schemas/clickhouse/sql.js'
import { fillRefusals } from './refusals-fill.js'
import { HOUR_MS, hourFloor } from '../services/shared/src/rollup/event-counts.js'
import { recountRanges } from '../services/shared/src/rollup/recount-ranges.js'

export interface FillSizes {
  events: number
  persons: number
}

const OBJECTS = ['page', 'signup', 'checkout', 'cart', 'search', 'invite', 'report', 'project', 'file', 'plan']
const VERBS = ['viewed', 'started', 'completed', 'failed', 'shared']
/** The 50 event names, `<object>_<verb>`. */
export const EVENT_NAMES = OBJECTS.flatMap((o) => VERBS.map((v) => `${o}_${v}`))
const SPAN_S = 30 * 86_400

/**
 * Events per INSERT of the fill. An insert this size is one block to the materialized views, so
 * usage_monthly_sharded gets one row per (month, environment, shard) from each, as from a projector's
 * batch (at most REPLAY_MAX_ROWS, 50,000), and ClickHouse's merges combine them. The ten million events in
 * one INSERT left 16 rows per key in a single part, never merged again: a layout the projector never
 * writes, which made the Usage page's month read three to five times slower (BENCHMARKS.md).
 */
export const EVENTS_PER_INSERT = 500_000

/**
 * Events number `from` to `from + count - 1` of the fill, as one INSERT ... SELECT. Event names are skewed
 * (the square of a uniform index, so the first names are frequent and the last rare); user `user_<k>` for
 * k < persons; timestamps spread evenly over the 30 days before `nowS`.
 */
export function eventsFill(
  database: string,
  accountId: string,
  nowS: number,
  s: FillSizes,
  from = 0,
  count = s.events,
): string {
  return sql`INSERT INTO ${ident(database, 'events')}
  (event_id, account_id, environment, key_id, event, user_id, timestamp, timestamp_ms, original_timestamp_ms,
   received_at, received_at_ms, sent_at_ms, timestamp_flagged, properties, context, ip, user_agent, message_id,
   user_email, user_traits, anonymous_id)
SELECT concat('evt_', toString(number)), ${accountId}, if(number % 10 = 0, 'test', 'live'),
  if(number % 10 = 0, 'key_test', 'key_live'),
  arrayElement(${EVENT_NAMES}, 1 + intDiv(toUInt64(pow(cityHash64(number) % 1000, 2)), 20000)),
  concat('user_', toString(cityHash64(number, 1) % ${s.persons})) AS uid,
  toDateTime(${nowS} - intDiv(number * ${SPAN_S}, ${s.events}), 'UTC') AS ts, toInt64(toUInt32(ts)) * 1000 + number % 1000 AS ms,
  ms, ts, ms + 40, ms + 5, 0,
  concat('{"path":"/app/', toString(number % 200), '","plan":"', arrayElement(['free','team','business'], 1 + number % 3),
    '","amount":', toString(number % 5000 / 100), ',"paid":', if(number % 4 = 0, 'true', 'false'),
    ',"items":', toString(number % 12), ',"cart":{"size":', toString(number % 7), '}',
    if(number % 5 = 0, concat(',"coupon":"SPRING', toString(number % 9), '"'), ''), '}'),
  '{"library":{"name":"@acme/analytics","version":"3.1.0"},"locale":"en-GB","page":{"referrer":"https://www.example.com/"}}',
  '203.0.113.7', 'Mozilla/5.0 (X11; Linux x86_64)', concat('msg_', toString(number)), '', '',
  if(number % 20 = 0, concat('anon_', uid), '')
FROM numbers(${from}, ${count})`
}

/** One identify per person, each with an email and the person's traits, in the month before `nowS`. */
export function identifiesFill(database: string, accountId: string, nowS: number, s: FillSizes): string {
  return sql`INSERT INTO ${ident(database, 'identifies')}
  (event_id, account_id, environment, key_id, user_id, email, traits, timestamp, timestamp_ms, original_timestamp_ms,
   received_at, received_at_ms, sent_at_ms, timestamp_flagged, context, ip, user_agent, message_id, anonymous_id)
SELECT concat('idf_', toString(number)), ${accountId}, 'live', 'key_live', concat('user_', toString(number)),
  concat('person', toString(number), '@example.com'),
  concat('{"email":"person', toString(number), '@example.com","plan":"', arrayElement(['free','team','business'], 1 + number % 3), '"}'),
  toDateTime(${nowS} - number % ${SPAN_S}, 'UTC') AS ts, toInt64(toUInt32(ts)) * 1000 AS ms, ms, ts, ms, ms, 0,
  '{}', '', '', concat('idm_', toString(number)), ''
FROM numbers(${s.persons})`
}

/** Five traits a person: email, plan, seats (a number), verified (a boolean), company. */
export function traitsFill(database: string, accountId: string, nowS: number, s: FillSizes): string {
  return sql`INSERT INTO ${ident(database, 'user_traits')}
  (account_id, environment, user_id, trait_key, value, set_at, set_at_ms, source_event_id)
SELECT ${accountId}, 'live', concat('user_', toString(intDiv(number, 5))) AS uid,
  arrayElement(['email', 'plan', 'seats', 'verified', 'company'], 1 + number % 5),
  multiIf(number % 5 = 0, concat('"person', toString(intDiv(number, 5)), '@example.com"'),
    number % 5 = 1, concat('"', arrayElement(['free','team','business'], 1 + intDiv(number, 5) % 3), '"'),
    number % 5 = 2, toString(number % 40), number % 5 = 3, if(number % 2 = 0, 'true', 'false'),
    concat('"Company ', toString(number % 997), '"')),
  toDateTime(${nowS} - number % ${SPAN_S}, 'UTC') AS ts, toInt64(toUInt32(ts)) * 1000, concat('idf_', toString(intDiv(number, 5)))
FROM numbers(${s.persons * 5})`
}

/**
 * Runs the three fills (the users table and identity links follow through their materialized views),
 * counts the filled hours by the statements the projector's recount runs (U19, U26; their days, U29), then
 * writes a week of refused requests (refusals-fill.ts).
 */
export async function fillAccount(
  ch: ClickHouseClient,
  database: string,
  accountId: string,
  nowS: number,
  s: FillSizes,
): Promise<void> {
  const events: string[] = []
  for (let from = 0; from < s.events; from += EVENTS_PER_INSERT)
    events.push(eventsFill(database, accountId, nowS, s, from, Math.min(EVENTS_PER_INSERT, s.events - from)))
  for (const query of [
    ...events,
    identifiesFill(database, accountId, nowS, s),
    traitsFill(database, accountId, nowS, s),
  ])
    await ch.command({ query })
  const ranges = [{ accountId, fromMs: hourFloor((nowS - SPAN_S) * 1000), toMs: hourFloor(nowS * 1000) + HOUR_MS }]
  await recountRanges(ch, database, ranges)
  await fillRefusals(ch, database, accountId, nowS * 1000)
}
