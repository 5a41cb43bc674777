// The ClickHouse of the local stack (deploy/local/clickhouse.sh, docs/design.md A7, A8): started from
// chdb-core, it is ClickHouse 26.9 with the project's users, keeps its data across a restart, and
// `down` (or the supervisor's death) leaves no process behind. The server runs in a temporary
// STACK_DIR on free ports; the install (chdb-core in a venv) is the project's own, in $STACK_DIR or
// .stack/, made on first use as `stack.sh up` makes it.
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { request } from 'node:http'
import { freePort, takenPort, tempDir } from '../../../test/support/ports.js'

const root = resolve(import.meta.dirname, '..', '..', '..')
const script = join(root, 'deploy', 'local', 'clickhouse.sh')
const installs = process.env.STACK_DIR ?? join(root, '.stack')

function run(cmd: string, env: Record<string, string>) {
  return spawnSync('bash', [script, cmd], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 600_000 })
}

/** One HTTP POST on its own connection (a pooled one would outlive the server across a restart). */
function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false }, (res) => {
      let text = ''
      res
        .setEncoding('utf8')
        .on('data', (c) => (text += c))
        .on('end', () => resolve({ status: res.statusCode!, body: text }))
    })
    req.on('error', reject).end(body)
  })
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The supervisor's pid and its children's (the server process). */
function processTree(dir: string): number[] {
  const pid = Number(readFileSync(join(dir, 'run', 'clickhouse.pid'), 'utf8').trim())
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).trim()
  return [pid, ...children.split('\n').filter(Boolean).map(Number)]
}

t.test('a taken port stops `up` before any install, naming the variable', async (t) => {
  const port = await takenPort(t)
  const dir = tempDir(t, 'ch-')
  const r = run('up', { STACK_DIR: dir, CLICKHOUSE_HTTP_PORT: '1', CLICKHOUSE_TCP_PORT: String(port) })
  t.equal(r.status, 1)
  t.match(
    r.stderr,
    `FAILED: clickhouse: port ${port} on 127.0.0.1 is taken by another process (set CLICKHOUSE_TCP_PORT to move it)`,
  )
  t.notMatch(r.stderr, /installing/, 'nothing was downloaded')
})

t.test('ClickHouse 26.9 from chdb-core: users, FINAL, data across a restart, a clean stop', async (t) => {
  const install = run('install', { STACK_DIR: installs })
  t.equal(install.status, 0, install.stderr)
  const dir = mkdtempSync(join(tmpdir(), 'ch-'))
  symlinkSync(join(installs, 'chdb-venv'), join(dir, 'chdb-venv'))
  const env = {
    STACK_DIR: dir,
    CLICKHOUSE_HTTP_PORT: String(await freePort()),
    CLICKHOUSE_TCP_PORT: String(await freePort()),
  }
  t.teardown(() => {
    run('down', env) // before the directory with its pid file goes
    rmSync(dir, { recursive: true, force: true })
  })
  const url = `http://127.0.0.1:${env.CLICKHOUSE_HTTP_PORT}`
  const sql = (query: string, user = 'default') => post(`${url}/?user=${user}`, query)

  // A stack that ran 18.16 has its data in clickhouse/data: 26.9 starts on a directory of its own (A8).
  mkdirSync(join(dir, 'clickhouse', 'data', 'metadata'), { recursive: true })
  const up = run('up', env)
  t.equal(up.status, 0, up.stderr)
  t.match(up.stderr, `${dir}/clickhouse/data holds ClickHouse 18.16's data, which is no longer read (A8)`)
  t.match(run('status', env).stdout, /^clickhouse\s+up/m)
  t.match((await sql('SELECT version()')).body, /^26\.9\./)

  // The dashboard's read-only user of deploy/local/clickhouse/users.xml (H23), with its bounds.
  t.equal(
    (await sql("SELECT value FROM system.settings WHERE name = 'max_result_rows'", 'dashboard_read')).body,
    '100000\n',
  )
  const write = await sql('CREATE DATABASE must_not_exist', 'dashboard_read')
  t.not(write.status, 200)
  t.match(write.body, /READONLY/)

  // A packaged server's defaults, not clickhouse-local's (deploy/local/chdb/users.d): a bare expression
  // is a syntax error, as on any ClickHouse server.
  const bare = await sql('1 + 1')
  t.equal(bare.status, 400)
  t.match(bare.body, /Code: 62\./)

  // The writers' profile leaves out two insert costs 18.16 never had (docs/design.md A26).
  t.equal(
    (
      await sql(
        "SELECT name, value FROM system.settings WHERE name IN ('input_format_parallel_parsing', 'optimize_on_insert') ORDER BY name",
      )
    ).body,
    'input_format_parallel_parsing\t0\noptimize_on_insert\t0\n',
  )

  t.equal((await sql('CREATE DATABASE launcher_test')).status, 200)
  await sql(
    'CREATE TABLE launcher_test.r (id UInt32, v String, ver UInt32) ENGINE = ReplacingMergeTree(ver) ORDER BY id',
  )
  await sql("INSERT INTO launcher_test.r VALUES (1, 'old', 1), (2, 'kept', 1)")
  await sql("INSERT INTO launcher_test.r VALUES (1, 'new', 2)")
  const final = 'SELECT id, v FROM launcher_test.r FINAL ORDER BY id'
  t.equal((await sql(final)).body, '1\tnew\n2\tkept\n')

  const before = processTree(dir)
  t.equal(before.length, 2, 'a supervisor and its server')
  const down = run('down', env)
  t.equal(down.status, 0, down.stderr)
  t.same(before.filter(alive), [], 'no process left')
  t.match(run('status', env).stdout, /^clickhouse\s+down/m)

  t.equal(run('up', env).status, 0)
  t.equal((await sql(final)).body, '1\tnew\n2\tkept\n', 'the data survived the restart')

  // A supervisor killed outright takes the server with it: the FIFO the server reads closes.
  const tree = processTree(dir)
  process.kill(tree[0]!, 'SIGKILL')
  const deadline = Date.now() + 60_000
  while (tree.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  t.same(tree.filter(alive), [], 'the server ended with its supervisor')
})

t.test('a server that cannot listen makes its supervisor exit 1, saying why', async (t) => {
  t.equal(run('install', { STACK_DIR: installs }).status, 0)
  const port = await takenPort(t) // taken after stack.sh's own check would have passed
  const dir = tempDir(t, 'ch-')
  const config = readFileSync(join(root, 'deploy', 'local', 'chdb', 'config.xml'), 'utf8')
    .replaceAll('@STACK_DIR@', dir)
    .replaceAll('@CLICKHOUSE_HTTP_PORT@', String(port))
    .replaceAll('@CLICKHOUSE_TCP_PORT@', String(await freePort()))
  mkdirSync(join(dir, 'logs'))
  writeFileSync(join(dir, 'config.xml'), config)
  copyFileSync(join(root, 'deploy', 'local', 'clickhouse', 'users.xml'), join(dir, 'users.xml'))
  const python = join(installs, 'chdb-venv', 'bin', 'python')
  const r = spawnSync(python, [join(root, 'deploy', 'local', 'chdb', 'server.py'), dir, join(dir, 'data')], {
    encoding: 'utf8',
    timeout: 120_000,
  })
  t.equal(r.status, 1)
  t.match(r.stderr, /Address already in use/)
  t.match(r.stderr, /the server ended without being stopped/)
})
