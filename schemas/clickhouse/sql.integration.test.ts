// Literals from sql.ts round-trip through the real server unchanged: escaping holds.
import t from 'tap'
import { ident, literal, sql } from './sql.js'
import { createTestDatabase, queryRows } from '../../test/support/clickhouse-helpers.js'

const db = await createTestDatabase({ prefix: 'sql', migrate: false, t })
const { client, database } = db

const nasty = [
  '',
  "O'Brien",
  "x' OR 1=1 --",
  "x'; DROP DATABASE " + database + '; --',
  '\\',
  "\\'",
  "\\\\' OR '1'='1",
  'tab\there\nnewline\rcr\bbs\fff',
  'nul\u0000byte\u0001\u001f\u007fdel',
  'unicode é ✓ 😀',
  '{db} {x:String} ? $1 %s',
  '"double" `back`',
]

t.test('strings round-trip', async (t) => {
  for (const s of nasty) {
    const rows = await queryRows<{ v: string; n: string }>(client, sql`SELECT ${s} AS v, length(${s}) AS n`)
    t.equal(rows[0]!.v, s, JSON.stringify(s))
    t.equal(Number(rows[0]!.n), Buffer.byteLength(s), 'byte length')
  }
  const [{ n }] = (await queryRows<{ n: string }>(
    client,
    `SELECT count() AS n FROM system.databases WHERE name = ${literal(database)}`,
  )) as [{ n: string }]
  t.equal(Number(n), 1, 'the database is still there')
})

t.test('a value used in a WHERE clause only matches itself', async (t) => {
  await client.command({ query: `CREATE TABLE ${database}.kv (k String) ENGINE = TinyLog` })
  await client.insert({
    table: `${database}.kv`,
    values: [{ k: 'a' }, { k: 'b' }, { k: "x' OR '1'='1" }],
    format: 'JSONEachRow',
  })
  const hit = await queryRows<{ k: string }>(
    client,
    sql`SELECT k FROM ${ident(database, 'kv')} WHERE k = ${"x' OR '1'='1"}`,
  )
  t.same(hit, [{ k: "x' OR '1'='1" }])
  const miss = await queryRows(client, sql`SELECT k FROM ${ident(database, 'kv')} WHERE k = ${"a' OR '1'='1"}`)
  t.same(miss, [])
  const inList = await queryRows<{ k: string }>(
    client,
    sql`SELECT k FROM ${ident(database, 'kv')} WHERE has(${['a', "b' OR 1"]}, k)`,
  )
  t.same(inList, [{ k: 'a' }])
})

t.test('numbers, dates and arrays round-trip', async (t) => {
  const [row] = await queryRows<Record<string, unknown>>(
    client,
    sql`SELECT ${-42} AS i, ${0.125} AS f, ${9007199254740993n} AS b, toString(toDateTime(${new Date(Date.UTC(2024, 1, 29, 23, 59, 58, 999))}, 'UTC')) AS d, ${[1, 2, 3]} AS a, ${['x', "y'z"]} AS s`,
  )
  t.match(row, { i: -42, f: 0.125, b: '9007199254740993', d: '2024-02-29 23:59:58', a: [1, 2, 3], s: ['x', "y'z"] })
})
