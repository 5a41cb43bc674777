import t from 'tap'
import { readFile } from 'node:fs/promises'
import { HOUR_MS } from './event-counts.js'
import { PAIRS_MAX, propertyCountsSelect, propertyRebuildStatements, VALUE_MAX } from './property-counts.js'

t.test("migration 016's backfill counts the pairs as the recount does (one rule, U26)", async (t) => {
  const text = await readFile(
    new URL('../../../../schemas/clickhouse/016_property_counts_hourly.sql', import.meta.url),
    'utf8',
  )
  const select = propertyCountsSelect('DBNAME', '1').replaceAll('DBNAME', '{db}')
  t.ok(text.includes(`INSERT INTO {db}.property_counts_hourly\n${select};`), 'the backfill is propertyCountsSelect')
  t.match(
    select,
    new RegExp(`arraySlice\\(extractAll\\(properties, .*\\), 1, ${PAIRS_MAX}\\)`),
    'at most PAIRS_MAX pairs',
  )
  t.match(select, `> ${VALUE_MAX}, concat(substringUTF8(`, 'values cut at VALUE_MAX characters')
})

t.test('the recount names each range once, bound and escaped, and reads events FINAL', async (t) => {
  const T = Date.UTC(2024, 4, 13, 10)
  const [q, more] = propertyRebuildStatements('db1', [
    { accountId: "a'b", fromMs: T, toMs: T + HOUR_MS },
    { accountId: 'c', fromMs: T - HOUR_MS, toMs: T },
  ])
  t.equal(more, undefined, 'one statement')
  t.match(q!, /^INSERT INTO db1\.property_counts_hourly \(account_id, environment, event, hour, key, value, events\)/)
  t.match(q!, /FROM db1\.events FINAL/)
  t.match(
    q!,
    "(account_id IN ('a\\'b') AND timestamp >= toDateTime('2024-05-13 10:00:00', 'UTC') AND timestamp < toDateTime('2024-05-13 11:00:00', 'UTC'))",
  )
  t.match(q!, "OR (account_id IN ('c') AND timestamp >= toDateTime('2024-05-13 09:00:00', 'UTC')")
  const many = Array.from({ length: 2500 }, (_, i) => ({ accountId: `a${i}`, fromMs: T, toMs: T + HOUR_MS }))
  t.equal(
    propertyRebuildStatements('db1', many).length,
    3,
    "at most ACCOUNTS_PER_STATEMENT accounts a statement (event-counts.ts's conditions)",
  )
})
