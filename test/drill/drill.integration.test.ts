// The short fault drill (npm run drill -- --quick) as part of npm test: SIGKILL of ingest, Kafka
// stalled 40 s, SIGKILL of the projector, under a steady load; every acknowledged event must be on
// the topic and in ClickHouse exactly once, and no answer may be a 5xx other than 503 with
// Retry-After. It kills and stalls what it runs, so it starts its own stack on free ports in
// .stack-drill-test, never the shared one other test files are using.
import t from 'tap'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseOptions } from '../../scripts/drill/options.js'
import { runDrill } from '../../scripts/drill/run-drill.js'

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..')

// Stack start (~30-60 s on the shared 2-core machines) + about 100 s of faults + reconciliation.
t.setTimeout(420_000)

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

t.test('quick drill: nothing acknowledged is lost or duplicated, no bad 5xx', async (t) => {
  const ports: string[] = []
  while (ports.length < 8) {
    const p = String(await freePort())
    if (!ports.includes(p)) ports.push(p)
  }
  const flags = [
    'kafka-port',
    'kafka-controller-port',
    'registry-port',
    'clickhouse-http-port',
    'clickhouse-tcp-port',
    'ingest-port',
    'ingest-admin-port',
    'projector-port',
  ]
  const opts = parseOptions(
    ['--quick', '--stack-dir', join(ROOT, '.stack-drill-test'), ...flags.flatMap((f, i) => [`--${f}`, ports[i]])],
    {},
    ROOT,
  )
  const r = await runDrill(ROOT, opts, (m) => t.comment(m))
  t.comment(`\n${r.text}`)
  const sum = (f: (row: (typeof r.rows)[number]) => number) => r.rows.reduce((a, row) => a + f(row), 0)
  t.ok(sum((row) => row.acked) > 1000, 'the load was acknowledged throughout the run')
  t.equal(
    sum((row) => row.lostTopic),
    0,
    'no acknowledged event is missing from the events topic',
  )
  t.equal(
    sum((row) => row.lostClickhouse),
    0,
    'no acknowledged event is missing from ClickHouse',
  )
  t.equal(
    sum((row) => row.duplicated),
    0,
    'no acknowledged event is duplicated in ClickHouse (FINAL)',
  )
  t.equal(
    sum((row) => row.badAnswers),
    0,
    'no 5xx other than 503 with Retry-After',
  )
  t.same(r.verdict.failures, [], 'the drill passes (200s resume after each fault, no service dies on its own)')
})
