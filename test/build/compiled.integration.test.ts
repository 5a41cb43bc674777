// Production runs compiled JavaScript (bench/HISTORY.md): `npm run build` emits dist/, and the compiled
// projector and ingest start from it with nothing but node -- the Avro schemas, migrations and
// static files they read at run time are there too -- and carry an event from HTTP to ClickHouse.
import t from 'tap'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { openAdmin } from '../../scripts/admin-context.js'
import { createClickHouse } from '../../services/shared/src/clickhouse.js'
import { sql, ident } from '../../schemas/clickhouse/sql.js'
import { waitUntil, isolatedEnv } from '../support/harness.js'

const ROOT = join(import.meta.dirname, '..', '..')

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

t.test('the compiled services run from dist/', async (t) => {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(build.status, 0, `npm run build succeeds${build.status ? `: ${build.stderr}${build.stdout}` : ''}`)
  for (const f of [
    'services/ingest/src/main.js',
    'services/projector/src/main.js',
    'services/dashboard/src/main.js',
    'scripts/keys.js',
    'services/projector/src/replay/cli.js',
    'schemas/avro/event.avsc',
    'schemas/clickhouse/001_events.sql',
    'services/dashboard/src/public/index.html',
  ]) {
    t.ok(existsSync(join(ROOT, 'dist', f)), `dist/${f}`)
  }

  const s = randomBytes(5).toString('hex')
  const [ingestPort, ingestAdminPort, projectorPort] = [await freePort(), await freePort(), await freePort()]
  const env = isolatedEnv(s, {
    PROJECTOR_PORT: String(projectorPort),
    INGEST_PORT: String(ingestPort),
    INGEST_ADMIN_PORT: String(ingestAdminPort),
    INGEST_INSTANCE_ID: `ingest-${s}`,
    LOG_LEVEL: 'warn',
  })
  const children: ChildProcess[] = []
  const logs: string[] = []
  const run = (entry: string) => {
    const c = spawn(process.execPath, [join(ROOT, 'dist', entry)], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    c.stdout!.on('data', (d) => logs.push(String(d)))
    c.stderr!.on('data', (d) => logs.push(String(d)))
    children.push(c)
    return c
  }
  const ch = await createClickHouse({
    url: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
    username: 'default',
    password: '',
    database: env.CLICKHOUSE_DATABASE,
  })
  t.teardown(async () => {
    for (const c of children) c.kill('SIGKILL')
    await ch.command({ query: `DROP DATABASE IF EXISTS test_${s}` }).catch(() => undefined)
    await ch.close()
  })
  const up = async (url: string) => {
    try {
      return (await fetch(url)).ok
    } catch {
      return false
    }
  }
  run('services/projector/src/main.js')
  await waitUntil(
    () => up(`http://127.0.0.1:${projectorPort}/health`),
    90_000,
    `the compiled projector to be healthy; its log: ${logs.join('')}`,
  )
  run('services/ingest/src/main.js')
  await waitUntil(
    () => up(`http://127.0.0.1:${ingestAdminPort}/health/ready`),
    90_000,
    `the compiled ingest to be ready; its log: ${logs.join('')}`,
  )

  const { admin, close } = await openAdmin(env)
  t.teardown(close)
  await admin.createAccount({ accountId: `acct_${s}`, plan: 'launch' })
  const { secret } = await admin.createKey({ accountId: `acct_${s}`, name: 'build test', type: 'live' })
  let res: Response | undefined
  await waitUntil(
    async () => {
      res = await fetch(`http://127.0.0.1:${ingestPort}/v1/event`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'built', user: { id: 'u1' }, message_id: randomUUID() }),
      })
      return res.status !== 401 // the key reaches the compiled ingest's key table within a second or so
    },
    20_000,
    'the new key to be known',
  )
  t.equal(res!.status, 200)
  const eventId = (await res!.json()).data.results[0].event_id
  await waitUntil(
    async () => {
      const r = await ch.query({
        query: sql`SELECT count() AS n FROM ${ident(`test_${s}`, 'events')} FINAL WHERE event_id = ${eventId}`,
        format: 'JSONEachRow',
      })
      return Number(((await r.json()) as Array<{ n: string }>)[0]?.n ?? 0) === 1
    },
    30_000,
    'the event to reach ClickHouse through the compiled projector',
  )
  // The compiled services run the vendored kafkajs (packages/kafkajs, A11), as the tests do.
  const metrics = await (await fetch(`http://127.0.0.1:${ingestAdminPort}/metrics`)).text()
  t.match(
    metrics,
    /^ingest_kafka_client_info\{version="2\.2\.4",vendored="1"\} 1$/m,
    'the compiled ingest runs the vendored kafkajs',
  )
  const projectorMetrics = await (await fetch(`http://127.0.0.1:${projectorPort}/metrics`)).text()
  t.match(
    projectorMetrics,
    /^projector_kafka_client_info\{version="2\.2\.4",vendored="1"\} 1$/m,
    'the compiled projector runs the vendored kafkajs',
  )
})
