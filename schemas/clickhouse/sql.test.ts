import t from 'tap'
import { bind, escapeString, formatDateTime, ident, isIdentifier, literal, raw, sql, SqlBindError } from './sql.js'

t.test('strings are quoted with backslash, quote and control characters escaped', async (t) => {
  t.equal(literal('plain'), "'plain'")
  t.equal(literal(''), "''")
  t.equal(literal("O'Brien"), "'O\\'Brien'")
  t.equal(literal('back\\slash'), "'back\\\\slash'")
  t.equal(literal('a\nb\rc\td\be\ff'), "'a\\nb\\rc\\td\\be\\ff'")
  t.equal(literal('nul\u0000x\u0001\u001f\u007f'), "'nul\\x00x\\x01\\x1f\\x7f'")
  t.equal(literal('héllo ✓ 😀'), "'héllo ✓ 😀'", 'non-ASCII passes through')
  t.equal(escapeString("\\'"), "\\\\\\'")
})

t.test('injection attempts stay inside the literal', async (t) => {
  const attempts = [
    "x' OR 1=1 --",
    "x'; DROP TABLE events; --",
    "x\\' OR 1=1 --",
    "x\\\\' OR '1'='1",
    '\\',
    "'",
    "x\u0000' OR 1",
  ]
  for (const a of attempts) {
    const lit = literal(a)
    t.ok(lit.startsWith("'") && lit.endsWith("'"), 'quoted')
    const inner = lit.slice(1, -1)
    // Every quote inside is escaped by an odd run of backslashes: no early close.
    const unescapedQuote = /(^|[^\\])(\\\\)*'/.test(inner)
    t.notOk(unescapedQuote, `no unescaped quote in ${JSON.stringify(a)}`)
    t.notOk(/\\$/.test(inner.replace(/\\\\/g, '')), 'does not end with a dangling backslash')
  }
  const q = sql`SELECT 1 WHERE account_id = ${"a' OR '1'='1"}`
  t.equal(q, "SELECT 1 WHERE account_id = 'a\\' OR \\'1\\'=\\'1'")
})

t.test('numbers must be finite; bigint, boolean, null', async (t) => {
  t.equal(literal(42), '42')
  t.equal(literal(-3.5), '-3.5')
  t.equal(literal(-0), '0')
  t.equal(literal(1e21), '1e+21')
  t.equal(literal(9007199254740993n), '9007199254740993')
  t.equal(literal(true), '1')
  t.equal(literal(false), '0')
  t.equal(literal(null), 'NULL')
  t.throws(() => literal(NaN), SqlBindError)
  t.throws(() => literal(Infinity), SqlBindError)
  t.throws(() => literal(-Infinity), SqlBindError)
})

t.test('dates render as UTC DateTime text', async (t) => {
  t.equal(literal(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))), "'2024-01-02 03:04:05'")
  t.equal(formatDateTime(0), '1970-01-01 00:00:00')
  t.throws(() => literal(new Date('nope')), SqlBindError)
  t.throws(() => formatDateTime(Date.UTC(1969, 11, 31)), SqlBindError)
})

t.test('arrays render recursively', async (t) => {
  t.equal(literal([1, 2, 3]), '[1, 2, 3]')
  t.equal(literal(['a', "b'c"]), "['a', 'b\\'c']")
  t.equal(literal([]), '[]')
  t.equal(literal([[1], [2, 3]]), '[[1], [2, 3]]')
  t.throws(() => literal([1, NaN]), SqlBindError)
})

t.test('unsupported values are refused', async (t) => {
  t.throws(() => literal(undefined as never), SqlBindError)
  t.throws(() => literal({ a: 1 } as never), SqlBindError)
  t.throws(() => literal((() => 1) as never), SqlBindError)
  t.throws(() => literal(Symbol('x') as never), SqlBindError)
})

t.test('identifiers are validated', async (t) => {
  t.ok(isIdentifier('events'))
  t.ok(isIdentifier('_t1'))
  for (const bad of ['', '1abc', 'a-b', 'a b', 'a.b', 'a;DROP', '`x`', 'événement', 'x\n']) {
    t.notOk(isIdentifier(bad), JSON.stringify(bad))
    t.throws(() => ident(bad), SqlBindError)
  }
  t.equal(ident('db', 'events').text, 'db.events')
  t.equal(sql`SELECT * FROM ${ident('db', 'events')} LIMIT ${10}`, 'SELECT * FROM db.events LIMIT 10')
  t.equal(sql`SELECT ${raw('count()')}`, 'SELECT count()')
})

t.test('bind replaces named placeholders', async (t) => {
  const q = bind('SELECT * FROM {db:Identifier}.events WHERE user_id = {u} AND n IN {ids}', {
    db: 'analytics',
    u: "x' --",
    ids: [1, 2],
  })
  t.equal(q, "SELECT * FROM analytics.events WHERE user_id = 'x\\' --' AND n IN [1, 2]")
  t.throws(() => bind('SELECT {missing}', {}), SqlBindError)
  t.throws(() => bind('SELECT * FROM {db:Identifier}', { db: 'x; DROP TABLE y' }), SqlBindError)
  t.throws(() => bind('SELECT {a}', { a: undefined as never }), SqlBindError)
  // A value that looks like a placeholder is not re-expanded.
  t.equal(bind('SELECT {a}, {b}', { a: '{b}', b: 1 }), "SELECT '{b}', 1")
  t.equal(bind('SELECT {toString}', { toString: 1 }), 'SELECT 1', 'own properties only')
  t.throws(() => bind('SELECT {constructor}', {}), SqlBindError, 'prototype keys are not parameters')
})
