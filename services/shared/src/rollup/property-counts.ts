// The hourly property counts (decision U26 of docs/design.md, schemas/clickhouse/016_property_counts_hourly.sql):
// events counted per (account, environment, event, hour, property key, value), what a Trends breakdown
// reads instead of parsing the properties of every event of its period. Recomputed from `events FINAL` for
// the hours the recount counts (U25), beside event_counts_hourly and with the same rule: a duplicate counts
// once, and of two counts of one row the larger stays (ReplacingMergeTree versioned by the count).
//
// The pairs of an event are read from its properties text with functions ClickHouse 18.16 has (A10): a
// constant regular expression finds each `"key":value` whose value is a string, number, boolean or null
// (an object or array is not a value; its own keys are pairs), and the key and value are cut at the first
// `":` (a key holds no quote). The text is JSON.stringify's (ingest, to-record.ts): no spaces. One source:
// the recount, the migration's backfill (checked by property-counts.test.ts) and the dashboard's reads of
// the hours not counted yet all use pairsSql and valueOfPairSql.
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import { HOUR_OF_TIMESTAMP, type HourRange, rangeConditions } from './event-counts.js'

export const PROPERTY_COUNTS_TABLE = 'property_counts_hourly'
/** A value longer than this (characters) is counted as its first VALUE_MAX characters and '…' (docs/limits.md). */
export const VALUE_MAX = 100
/** Pairs counted per event: the first PAIRS_MAX of its properties text (docs/limits.md). */
export const PAIRS_MAX = 50
/** The longest key counted, as a filter's key (trend-params.ts). */
export const PAIR_KEY_MAX = 255

// A pair: a quoted key without quotes or backslashes, `:`, and a string (escapes kept) or a scalar.
const PAIR_RE = `"[^"\\\\]{1,${PAIR_KEY_MAX}}":(?:"(?:[^"\\\\]|\\\\.)*"|[^",{}\\[\\]]+)`

/** The event's first PAIRS_MAX pairs as `"key":value` texts, a key's first pair only. */
export function pairsSql(column = 'properties'): SqlRaw {
  const all = sql`arraySlice(extractAll(${raw(column)}, ${PAIR_RE}), 1, ${PAIRS_MAX})`
  return raw(`arrayFilter((p, u) -> u = 1, ${all}, arrayEnumerateUniq(arrayMap(q -> ${keyOfPair('q')}, ${all})))`)
}

const keyOfPair = (p: string) => `substring(${p}, 2, position(${p}, '":') - 2)`

/** A pair's key. */
export const keyOfPairSql = (p: string): SqlRaw => raw(keyOfPair(p))

/**
 * A pair's value as text: a string without its quotes (escapes as in the JSON; the empty string `""`), a
 * number, boolean or null as written; longer than VALUE_MAX characters, its first VALUE_MAX and '…'. '' for the pair '' (no pair).
 */
export function valueOfPairSql(p: string): SqlRaw {
  return valueTextSql(`substring(${p}, position(${p}, '":') + 2)`)
}

/** A JSON value's text (`v`, an expression) as a breakdown shows it: valueOfPairSql's rule (U26, U27). */
export function valueTextSql(v: string): SqlRaw {
  // An empty string stays `""`, as U13's extraction shows it: '' is an event without the key.
  const text = `if(substring(${v}, 1, 1) = '"' AND length(${v}) > 2, substring(${v}, 2, length(${v}) - 2), ${v})`
  return raw(`if(lengthUTF8(${text}) > ${VALUE_MAX}, concat(substringUTF8(${text}, 1, ${VALUE_MAX}), '…'), ${text})`)
}

/** The value of one key in an event, as counted ('' when the event has no such pair). */
export function propertyValueSql(key: string): SqlRaw {
  // Named once (an alias), so the pair's expression is written once however often the value names it.
  const pair = sql`(arrayFirst(p -> ${raw(keyOfPair('p'))} = ${key}, ${pairsSql()}) AS breakdown_pair)`
  return raw(`if(${pair} = '', '', ${valueOfPairSql('breakdown_pair').text})`)
}

/** The SELECT counting the pairs of the events matching `where` (the recount's and the backfill's). */
export function propertyCountsSelect(database: string, where: string): string {
  return `SELECT account_id, environment, event, ${HOUR_OF_TIMESTAMP} AS h, ${keyOfPair('pair')} AS key,
    ${valueOfPairSql('pair').text} AS value, count() AS events
FROM ${ident(database, 'events').text} FINAL
ARRAY JOIN ${pairsSql().text} AS pair
WHERE ${where}
GROUP BY account_id, environment, event, h, key, value`
}

/** Recomputes the ranges' rows from `events FINAL`; `timestamp` bounds whole hours exactly (event-counts.ts's conditions). */
export function propertyRebuildStatements(database: string, ranges: readonly HourRange[]): string[] {
  const table = ident(database, PROPERTY_COUNTS_TABLE).text
  return rangeConditions(ranges).map(
    (where) =>
      `INSERT INTO ${table} (account_id, environment, event, hour, key, value, events)\n${propertyCountsSelect(database, where)}`,
  )
}
