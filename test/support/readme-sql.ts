// The SQL blocks of a markdown guide (schemas/clickhouse/README.md), so tests run the queries
// exactly as the guide prints them.

/** The text of the `## ` section whose heading starts with `heading`, up to the next `## `. */
export function markdownSection(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}`)
  if (start < 0) throw new Error(`no section "## ${heading}"`)
  const next = markdown.indexOf('\n## ', start + 1)
  return markdown.slice(start, next < 0 ? undefined : next)
}

/** Every ```sql block of `markdown`, without its final newline. */
export function sqlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trimEnd())
}

/** The ```sql blocks preceded by `<!-- query: NAME -->`, by name; a block without one is an error. */
export function namedSqlBlocks(markdown: string): Map<string, string> {
  const named = new Map<string, string>()
  for (const m of markdown.matchAll(/<!-- query: ([a-z0-9-]+) -->\n```sql\n([\s\S]*?)```/g)) {
    if (named.has(m[1]!)) throw new Error(`query "${m[1]}" is named twice`)
    named.set(m[1]!, m[2]!.trimEnd())
  }
  const blocks = sqlBlocks(markdown).length
  if (blocks !== named.size)
    throw new Error(`${blocks - named.size} sql block(s) without a <!-- query: name --> comment`)
  return named
}
