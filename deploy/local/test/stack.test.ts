// The stack script's failures name the component, the reason and what to change.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { takenPort, tempDir } from '../../../test/support/ports.js'

const script = join(import.meta.dirname, '..', 'stack.sh')

t.test('a taken port stops `up` before any install, naming the component and the variable', async (t) => {
  const port = await takenPort(t)
  const dir = tempDir(t, 'stack-')
  const r = spawnSync('bash', [script, 'up'], {
    env: {
      ...process.env,
      STACK_DIR: dir,
      REGISTRY_PORT: String(port),
      KAFKA_PORT: '1',
      KAFKA_CONTROLLER_PORT: '2',
      CLICKHOUSE_HTTP_PORT: '3',
      CLICKHOUSE_TCP_PORT: '4',
    },
    encoding: 'utf8',
  })
  t.equal(r.status, 1)
  t.match(
    r.stderr,
    `FAILED: registry: port ${port} on 127.0.0.1 is taken by another process (set REGISTRY_PORT to move it)`,
  )
  t.notMatch(r.stderr, /installing/, 'nothing was downloaded')
})

t.test('status of a stack that is not running says so for each component', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const r = spawnSync('bash', [script, 'status'], {
    env: { ...process.env, STACK_DIR: dir, KAFKA_PORT: '1', REGISTRY_PORT: '2', CLICKHOUSE_HTTP_PORT: '3' },
    encoding: 'utf8',
  })
  t.equal(r.status, 1)
  t.match(r.stdout, /kafka\s+down/)
  t.match(r.stdout, /registry\s+down/)
  t.match(r.stdout, /clickhouse\s+down/)
})

t.test(
  '--with-clickhouse-current is still accepted and changes nothing: ClickHouse 26.9 is the one server (A8)',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'stack-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const r = spawnSync('bash', [script, 'status', '--with-clickhouse-current'], {
      env: { ...process.env, STACK_DIR: dir, KAFKA_PORT: '1', REGISTRY_PORT: '2', CLICKHOUSE_HTTP_PORT: '3' },
      encoding: 'utf8',
    })
    t.equal(r.status, 1)
    t.match(r.stdout, /^clickhouse\s+down\s+http:\/\/127\.0\.0\.1:3$/m)
    t.notMatch(r.stdout, /clickhouse-current/)
  },
)

t.test('an unknown command prints the usage', async (t) => {
  const r = spawnSync('bash', [script, 'sideways'], { encoding: 'utf8' })
  t.equal(r.status, 2)
  t.match(r.stderr, /usage: .* up \[--with-redis\]\|down\|status/)
})
