// Lists every failing assertion of a TAP log with the subtests around it, so the last lines of a CI
// log name what failed (a CI log is often read from its tail only).
// Usage: node .ci/failures.mjs LOG
import { readFileSync } from 'node:fs'

const lines = readFileSync(process.argv[2], 'utf8').split('\n')
const path = [] // [indent, name] of the subtests enclosing the current line
const out = []
let failures = 0
for (let i = 0; i < lines.length; i++) {
  const line = lines[i]
  const indent = line.length - line.trimStart().length
  const text = line.trim()
  const subtest = /^# Subtest: (.*)$/.exec(text)
  if (subtest) {
    while (path.length > 0 && path[path.length - 1][0] >= indent) path.pop()
    path.push([indent, subtest[1]])
    continue
  }
  if (!/^not ok \d+/.test(text)) continue
  // A failing subtest closes with a "not ok" of its own name; report only the leaf assertions.
  if (path.some(([at, name]) => at === indent && text.startsWith('not ok') && text.includes(` - ${name}`))) continue
  const next = lines[i + 1] ?? ''
  const within = path.filter(([at]) => at < indent).map(([, name]) => name)
  failures++
  out.push(`not ok: ${[...within, text.replace(/^not ok \d+ - /, '')].join(' > ')}`)
  // The YAML block after the assertion says what was expected and found; its source excerpt is
  // left out (the stack names the line).
  if (/^\s*---/.test(next)) {
    const base = next.length - next.trimStart().length
    let inSource = false
    for (let j = i + 2, shown = 0; j < lines.length && shown < 30; j++) {
      if (/^\s*\.\.\.\s*$/.test(lines[j])) break
      const key = /^(\s*)([a-zA-Z_]+):/.exec(lines[j])
      if (key && key[1].length === base) inSource = key[2] === 'source'
      if (inSource) continue
      out.push(`    ${lines[j].slice(base)}`)
      shown++
    }
  }
}
if (out.length > 0) console.log(`\nfailures (${failures}):\n${out.join('\n')}`)
