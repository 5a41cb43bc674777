import t from 'tap'
import { checksum, loadMigrations, renderStatement, splitStatements } from './migrate.js'

t.test('splits at a semicolon that ends a line, drops comment lines', async (t) => {
  const text = `-- header\nCREATE TABLE a (x String DEFAULT ';') ENGINE = Memory;\n\n-- two\nCREATE VIEW b AS SELECT 1;  \nSELECT 'a;b'`
  t.same(splitStatements(text), [
    "CREATE TABLE a (x String DEFAULT ';') ENGINE = Memory",
    'CREATE VIEW b AS SELECT 1',
    "SELECT 'a;b'",
  ])
  t.same(splitStatements('-- only a comment\n'), [])
})

t.test('renders {db} with a validated name', async (t) => {
  t.equal(renderStatement('CREATE TABLE {db}.x AS {db}.y', 'analytics'), 'CREATE TABLE analytics.x AS analytics.y')
  t.throws(() => renderStatement('SELECT 1', 'a;b'))
})

t.test('the shipped migrations load in order, each statement idempotent', async (t) => {
  const ms = await loadMigrations()
  t.ok(ms.length >= 5)
  t.same(
    ms.map((m) => m.version),
    [...ms.map((m) => m.version)].sort((a, b) => a - b),
  )
  // A backfill (INSERT ... SELECT) may run twice too: only into a ReplacingMergeTree table, where a
  // row inserted again is a duplicate that FINAL, DISTINCT and the merges remove (006_retry_ids.sql), or
  // into an AggregatingMergeTree table of uniqExact states alone, where a set merged with itself is the
  // same set (018_usage_monthly_sharded.sql).
  const replacing = new Set<string>()
  for (const m of ms) {
    for (const s of m.statements) {
      const created = /^CREATE TABLE IF NOT EXISTS \{db\}\.(\w+)[\s\S]*ENGINE = ReplacingMergeTree\(/.exec(s)
      if (created) replacing.add(created[1]!)
      const sets = /^CREATE TABLE IF NOT EXISTS \{db\}\.(\w+)[\s\S]*ENGINE = AggregatingMergeTree\(/.exec(s)
      const states = s.match(/AggregateFunction\(\w+/g) ?? []
      if (sets && states.length > 0 && states.every((f) => f === 'AggregateFunction(uniqExact')) replacing.add(sets[1]!)
    }
  }
  // A view retired for good: dropped, and made by no later statement.
  const later = (file: number, statement: number) =>
    ms.flatMap((m, i) => (i < file ? [] : i === file ? m.statements.slice(statement + 1) : m.statements))
  ms.forEach((m, file) => {
    t.match(m.checksum, /^[0-9a-f]{64}$/)
    m.statements.forEach((s, i) => {
      const backfill = /^INSERT INTO \{db\}\.(\w+)\s+SELECT /.exec(s)
      // A materialized view is remade (its query cannot be altered on 18.16) by a DROP ... IF EXISTS
      // followed at once by its CREATE ... IF NOT EXISTS: run twice, the pair makes the same view again.
      const dropped = /^DROP TABLE IF EXISTS \{db\}\.(\w+_(mv|view))$/.exec(s)
      const remade = (name: string) => later(file, i).some((x) => x.includes(`VIEW IF NOT EXISTS {db}.${name} `))
      // 18.16 has no ADD COLUMN IF NOT EXISTS: run again, the runner takes "already exists" as done.
      const addColumn = /^ALTER TABLE \{db\}\.\w+ ADD COLUMN \w+ \w+$/.test(s)
      if (addColumn) t.pass(`${m.file}: ${s}`)
      else if (backfill)
        t.ok(
          replacing.has(backfill[1]!),
          `${m.file}: a backfill into ${backfill[1]}, where a row inserted twice changes no answer`,
        )
      else if (dropped && !remade(dropped[1]!)) t.pass(`${m.file}: ${dropped[1]} retired`)
      else if (dropped)
        t.match(
          m.statements[i + 1] ?? '',
          new RegExp(`^CREATE (MATERIALIZED )?VIEW IF NOT EXISTS \\{db\\}\\.${dropped[1]} `),
          `${m.file}: ${dropped[1]} dropped only to be made again at once`,
        )
      else
        t.match(
          s,
          /^CREATE (TABLE|VIEW|MATERIALIZED VIEW|DATABASE) IF NOT EXISTS \{db\}\./,
          `${m.file}: ${s.slice(0, 60)}`,
        )
      // A6: features 18.16 lacks must not appear.
      t.notMatch(s, /DateTime64|\bMap\(|\bJSON\b|\bBool\b|CODEC|JSONExtract|SimpleAggregateFunction|LowCardinality/)
    })
  })
  t.equal(checksum('x'), checksum('x'))
  t.not(checksum('x'), checksum('y'))
})
