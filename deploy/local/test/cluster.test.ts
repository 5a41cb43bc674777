// The cluster profile's script (deploy/local/cluster.sh, through stack.sh --profile cluster): its
// failures name the component and the variable to change, without starting or installing anything.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'

const script = join(import.meta.dirname, '..', 'stack.sh')

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('status of a cluster that is not running lists every component as down', async (t) => {
  const dir = tempDir(t)
  // Ports nobody listens on (1-16), so a running cluster profile on this machine cannot answer.
  const r = spawnSync('bash', [script, 'status', '--profile', 'cluster'], {
    env: { ...process.env, CLUSTER_DIR: dir, CLUSTER_PORT_BASE: '1' },
    encoding: 'utf8',
  })
  t.equal(r.status, 1)
  for (const c of [
    'kafka-1',
    'kafka-2',
    'kafka-3',
    'registry',
    'zookeeper',
    'clickhouse-1',
    'clickhouse-2',
    'clickhouse-3',
    'clickhouse-4',
    'redis',
    'projector',
    'ingest-1',
    'ingest-2',
    'dashboard',
    'haproxy',
  ]) {
    t.match(r.stdout, new RegExp(`^${c}\\s+down`, 'm'), c)
  }
})

t.test('a taken port stops `up` before anything is installed or started, naming the CLUSTER_ variable', async (t) => {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => void server.close())
  const port = (server.address() as { port: number }).port
  const dir = tempDir(t)
  const r = spawnSync('bash', [script, 'up', '--profile', 'cluster'], {
    env: {
      ...process.env,
      CLUSTER_DIR: dir,
      STACK_DIR: dir,
      CLUSTER_PORT_BASE: '1',
      CLUSTER_KAFKA_2_PORT: String(port),
    },
    encoding: 'utf8',
  })
  t.equal(r.status, 1)
  t.match(
    r.stderr,
    `FAILED: kafka-2: port ${port} on 127.0.0.1 is taken by another process (set CLUSTER_KAFKA_2_PORT to move it)`,
  )
  t.notMatch(r.stderr, /installing|starting/, 'nothing was installed or started')
})

t.test('two components on one port is refused', async (t) => {
  const dir = tempDir(t)
  const r = spawnSync('bash', [script, 'up', '--profile', 'cluster'], {
    env: { ...process.env, CLUSTER_DIR: dir, STACK_DIR: dir, CLUSTER_PORT_BASE: '1', CLUSTER_REDIS_PORT: '2' },
    encoding: 'utf8',
  })
  t.equal(r.status, 1)
  t.match(r.stderr, /two of its ports are the same/)
})

t.test('an unknown profile is refused with the known ones', async (t) => {
  const r = spawnSync('bash', [script, 'status', '--profile', 'sideways'], { encoding: 'utf8' })
  t.equal(r.status, 2)
  t.match(r.stderr, /unknown profile: sideways \(single or cluster\)/)
})
