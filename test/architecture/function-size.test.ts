// HTTP code and composition roots stay wiring: no function in the HTTP and API folders or in a
// service's main.ts runs over 60 lines; behaviour lives in small named modules (e.g.
// services/ingest/src/pipeline/). Every kind of function counts: declarations, arrow functions,
// function expressions, class methods, constructors and accessors, found by the TypeScript parser
// rather than by the shape of a line.
import t from 'tap'
import ts from 'typescript'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MAX_LINES = 60
const DIRS = [
  'services/ingest/src/http',
  'services/dashboard/src/api',
  'services/dashboard/src/http',
  'services/shared/src/http',
]
const MAIN_FILES = ['services/ingest/src/main.ts', 'services/projector/src/main.ts', 'services/dashboard/src/main.ts']

/** Every function of `source` longer than max lines, as "name (n lines)"; nested ones count on their own. */
export function longFunctions(source: string, max: number): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true)
  const out: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line
      if (last - first + 1 > max) out.push(`${functionName(node)} (${last - first + 1} lines)`)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return out
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node }
  if (named.name && (ts.isIdentifier(named.name) || ts.isPrivateIdentifier(named.name))) return named.name.text
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const p = node.parent
  if (
    p &&
    (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) &&
    ts.isIdentifier(p.name)
  )
    return p.name.text
  return '(anonymous)'
}

t.test('the measure finds long functions of every kind', async (t) => {
  const body = '  x()\n'.repeat(70)
  const source = [
    `export function big() {\n${body}}`,
    `export const arrow = async (a: number) => {\n${body}}`,
    `const expr = function () {\n${body}}`,
    `class C {\n  constructor() {\n${body}  }\n  private method(): void {\n${body}  }\n  get value() {\n${body}  }\n}`,
    `run(() => {\n${body}})`,
    `function small() {\n  const inner = () => 1\n  return inner()\n}`,
  ].join('\n')
  t.same(longFunctions(source, MAX_LINES), [
    'big (72 lines)',
    'arrow (72 lines)',
    'expr (72 lines)',
    'constructor (72 lines)',
    'method (72 lines)',
    'value (72 lines)',
    '(anonymous) (72 lines)',
  ])
})

t.test(`no function in the HTTP and API folders or a main.ts is over ${MAX_LINES} lines`, async (t) => {
  const files = DIRS.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => `${dir}/${f}`),
  )
  const found: string[] = []
  for (const f of [...files, ...MAIN_FILES]) {
    for (const l of longFunctions(readFileSync(join(root, f), 'utf8'), MAX_LINES)) found.push(`${f}: ${l}`)
  }
  t.same(found, [])
})
