// Each counts table's `reads` (what an erasure's purge orders its deletions by, A28) is the table its recount
// statements read: one source, the statements, checked here.
import t from 'tap'
import { COUNTS_TABLES } from './counts-tables.js'
import { recountStatements } from './recount-ranges.js'

t.test("a counts table's reads is what its recount statements select from", async (t) => {
  const statements = recountStatements('db')([
    { accountId: 'a', fromMs: Date.UTC(2024, 4, 13, 1), toMs: Date.UTC(2024, 4, 13, 2) },
  ])
  for (const c of COUNTS_TABLES) {
    const own = statements.filter((q) => q.startsWith(`INSERT INTO db.${c.table} `))
    t.ok(own.length > 0, `${c.table} is recounted`)
    for (const q of own) t.match(q, `\nFROM db.${c.reads} FINAL\n`, `${c.table} reads ${c.reads}`)
  }
  t.equal(
    statements.filter((q) => !COUNTS_TABLES.some((c) => q.startsWith(`INSERT INTO db.${c.table} `))).length,
    0,
    'every statement writes a listed table',
  )
})
