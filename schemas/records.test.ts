// The hand-written TypeScript twins in records.ts must name the same fields as the .avsc files.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { SCHEMA_FILES } from './records.js'
import { loadAvsc } from './codec.js'

const src = readFileSync(new URL('./records.ts', import.meta.url), 'utf8')
const iface: Record<string, string> = {
  Event: 'EventRecord',
  Identify: 'IdentifyRecord',
  Account: 'AccountRecord',
  Plan: 'PlanRecord',
  ApiKey: 'ApiKeyRecord',
  DeadLetter: 'DeadLetterRecord',
  Erasure: 'ErasureRecord',
  Refusals: 'RefusalsRecord',
}
for (const name of Object.keys(SCHEMA_FILES)) {
  t.test(name, async (t) => {
    const body = new RegExp(`export interface ${iface[name]} \\{([^}]*)\\}`).exec(src)?.[1] ?? ''
    const tsFields = [...body.matchAll(/^\s*(\w+)\??:/gm)].map((m) => m[1])
    const avroFields = (loadAvsc(name as any).fields as Array<{ name: string }>).map((f) => f.name)
    t.same(tsFields, avroFields, `${iface[name]} matches ${SCHEMA_FILES[name as keyof typeof SCHEMA_FILES]}`)
  })
}
