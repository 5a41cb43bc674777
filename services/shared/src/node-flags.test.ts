// Every way a user starts ingest outside our TypeScript launchers must carry the same node flags:
// a deployment that lost them would run, only slower, and nothing else would notice.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { INGEST_NODE_FLAGS } from './node-flags.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const read = (p: string) => readFileSync(join(root, p), 'utf8')

/** The words of an exec-form JSON array (`["node", "--flag", "main.js"]`) on the line holding `marker`. */
function execForm(text: string, marker: string): string[] {
  const line = text.split('\n').find((l) => l.includes(marker) && l.includes('['))
  if (!line) return []
  return JSON.parse(line.slice(line.indexOf('['), line.lastIndexOf(']') + 1)) as string[]
}

t.test('the flags are set', async (t) => {
  t.ok(INGEST_NODE_FLAGS.length > 0)
  for (const f of INGEST_NODE_FLAGS) t.match(f, /^--[a-z-]+(=\S+)?$/)
})

t.test('npm run start:ingest passes them before the entry point', async (t) => {
  const cmd = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['start:ingest']!
  t.same(cmd.split(' '), ['node', ...INGEST_NODE_FLAGS, 'dist/services/ingest/src/main.js'])
})

// docker-compose.yml's ingest command is checked with the rest of that file in deploy/compose.test.ts.
t.test('the Dockerfile starts ingest with them', async (t) => {
  t.same(execForm(read('deploy/Dockerfile'), 'CMD'), ['node', ...INGEST_NODE_FLAGS, 'dist/services/ingest/src/main.js'])
})

t.test('the local cluster script gives them to its ingest instances', async (t) => {
  const line = read('deploy/local/cluster.sh')
    .split('\n')
    .find((l) => l.startsWith('INGEST_NODE_FLAGS='))
  t.equal(line, `INGEST_NODE_FLAGS=(${INGEST_NODE_FLAGS.join(' ')})`)
})
