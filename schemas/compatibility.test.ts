// A2: schema evolution stays BACKWARD compatible: the current schema (the reader) must read every
// record written with any released version kept in avro/history/. Release a schema change by
// adding its new version there; a change that breaks old records fails this test.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import avro from 'avsc'
import { SCHEMA_FILES, type SchemaName } from './records.js'
import { loadAvsc } from './codec.js'

const HISTORY = join(dirname(fileURLToPath(import.meta.url)), 'avro', 'history')
const fileToName = new Map(Object.entries(SCHEMA_FILES).map(([n, f]) => [f.replace('.avsc', ''), n as SchemaName]))

const history = readdirSync(HISTORY).filter((f) => f.endsWith('.avsc'))
t.ok(history.length >= Object.keys(SCHEMA_FILES).length, 'every schema has at least one released version')

for (const file of history) {
  const base = file.replace(/\.v\d+\.avsc$/, '')
  const name = fileToName.get(base)
  t.test(file, async (t) => {
    t.ok(name, `${file} names a known schema`)
    const writer = avro.Type.forSchema(JSON.parse(readFileSync(join(HISTORY, file), 'utf8')))
    const reader = avro.Type.forSchema(loadAvsc(name!) as any)
    const resolver = reader.createResolver(writer)
    // A record written with the old schema reads with the current one.
    const sample = writer.random()
    const decoded = reader.fromBuffer(writer.toBuffer(sample), resolver)
    for (const f of (writer as any).fields as Array<{ name: string }>) {
      if ((reader as any).fields.some((x: any) => x.name === f.name)) {
        t.same(
          JSON.stringify((decoded as any)[f.name]),
          JSON.stringify((sample as any)[f.name]),
          `field ${f.name} survives`,
        )
      }
    }
  })
}

t.test('a breaking change is caught', async (t) => {
  const old = avro.Type.forSchema(loadAvsc('Event') as any)
  const broken = JSON.parse(JSON.stringify(loadAvsc('Event')))
  broken.fields.push({ name: 'tenant', type: 'string' }) // new required field without a default
  t.throws(
    () => avro.Type.forSchema(broken).createResolver(old),
    'a new field without a default cannot read old records',
  )
  const fine = JSON.parse(JSON.stringify(loadAvsc('Event')))
  fine.fields.push({ name: 'tenant', type: ['null', 'string'], default: null })
  t.doesNotThrow(() => avro.Type.forSchema(fine).createResolver(old), 'an optional field with a default can')
})
