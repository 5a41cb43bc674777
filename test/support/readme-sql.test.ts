import t from 'tap'
import { markdownSection, namedSqlBlocks, sqlBlocks } from './readme-sql.js'

const doc = `# T\n\n## A\n\n\`\`\`sql\nSELECT 1\n\`\`\`\n\n## B (x)\n\n<!-- query: two -->\n\`\`\`sql\nSELECT 2\nFROM t\n\`\`\`\n`

t.test('a section runs to the next heading of its level', async (t) => {
  t.same(sqlBlocks(markdownSection(doc, 'A')), ['SELECT 1'])
  t.same(sqlBlocks(markdownSection(doc, 'B')), ['SELECT 2\nFROM t'])
  t.throws(() => markdownSection(doc, 'C'))
})

t.test('blocks are named by the comment before them, and every block must have one', async (t) => {
  t.same([...namedSqlBlocks(markdownSection(doc, 'B'))], [['two', 'SELECT 2\nFROM t']])
  t.throws(() => namedSqlBlocks(doc), /1 sql block\(s\) without/)
  t.throws(
    () => namedSqlBlocks(`<!-- query: a -->\n\`\`\`sql\nX\n\`\`\`\n<!-- query: a -->\n\`\`\`sql\nY\n\`\`\`\n`),
    /named twice/,
  )
})
