// A32 and A39 against the real stack: a replay runs again in a child started with glibc's larger per-thread
// cache, and, when its threads fill the cores, without the garbage collector's helper threads. What its user
// sees must not change: the same output and exit code, and a SIGTERM to the command stops the replay (the
// child is never left running on its own).
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { startServices, type TestServices } from '../support/harness.js'
import { runCli, type CliRun } from '../support/run-cli.js'

const FILL = Math.max(2, availableParallelism())

/** `npm run replay -- ...` as its user runs it; `onLine` sees each stderr line as it comes. */
function replayCli(
  s: TestServices,
  args: string[],
  onLine?: (line: string, kill: (sig: NodeJS.Signals) => void) => void,
  env: Record<string, string> = s.env,
): Promise<CliRun> {
  return runCli('services/projector/src/replay/cli.ts', args, env, (child) =>
    child.stderr.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line) onLine?.(line, (sig) => child.kill(sig))
    }),
  )
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const childPid = (err: string) => Number(/replay runs in process (\d+)/.exec(err)?.[1] ?? 0)
const TCACHE = 'glibc.malloc.tcache_count=16384'

/** The GLIBC_TUNABLES a process was started with, read while it runs ('none', or 'ended' when it was gone). */
function tunablesOf(pid: number): string {
  let environ: string[]
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')
  } catch {
    return 'ended'
  }
  return environ.find((v) => v.startsWith('GLIBC_TUNABLES='))?.slice('GLIBC_TUNABLES='.length) ?? 'none'
}

t.test('a replay runs in its own process, started with what it needs, and says so', async (t) => {
  const s = await startServices(t)
  const { key } = await s.createKey({ type: 'live' })
  const events = Array.from({ length: 30 }, (_, i) => ({ type: 'event', event: 'e', user: { id: `u${i}` } }))
  t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })).status, 200)
  const fresh = `${s.database}_gc${randomBytes(3).toString('hex')}`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }).then(() => undefined))

  const args = ['--topic', 'events', '--target', 'fresh', '--database', fresh, '--json']
  const tunables: string[] = []
  const started = (line: string) => {
    if (childPid(line) > 0) tunables.push(tunablesOf(childPid(line)))
  }
  const filled = await replayCli(s, [...args, '--workers', String(FILL)], started)
  t.equal(filled.code, 0, `the replay succeeds${filled.code ? `: ${filled.err.slice(-500)}` : ''}`)
  const pid = childPid(filled.err)
  t.ok(pid > 0, 'it says which process runs the replay')
  t.match(filled.err, `replay runs in process ${pid} without GC helper threads (A32), with ${TCACHE} (A39)`)
  t.same(tunables, [TCACHE], 'that process was started with the larger cache')
  t.equal(alive(pid), false, 'that process has ended with the command')
  const summary = JSON.parse(filled.out.trim().split('\n').pop()!).summary
  t.equal(summary.events, 30, 'the child’s summary is the command’s output')
  t.equal((await s.query(`SELECT 1 FROM ${fresh}.events FINAL`)).length, 30)

  const one = await replayCli(s, [...args, '--workers', '1'], started)
  t.equal(one.code, 0)
  t.match(
    one.err,
    `replay runs in process ${childPid(one.err)} with ${TCACHE} (A39)`,
    'one thread keeps the GC helpers',
  )
  t.same(tunables, [TCACHE, TCACHE])
  t.equal(JSON.parse(one.out.trim().split('\n').pop()!).summary.events, 30)

  const own = { ...s.env, GLIBC_TUNABLES: 'glibc.malloc.tcache_count=7' }
  const set = await replayCli(s, [...args, '--workers', '1'], started, own)
  t.equal(set.code, 0)
  t.equal(childPid(set.err), 0, 'one thread whose tunables set the cache runs in the command’s own process')
  t.equal(JSON.parse(set.out.trim().split('\n').pop()!).summary.events, 30)
})

t.test('a SIGTERM to the command stops the replay it started', async (t) => {
  const s = await startServices(t)
  const fresh = `${s.database}_gc${randomBytes(3).toString('hex')}`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }).then(() => undefined))
  let pid = 0
  const run = await replayCli(
    s,
    ['--topic', 'events', '--target', 'fresh', '--database', fresh, '--workers', String(FILL)],
    (line, kill) => {
      if (pid !== 0 || childPid(line) === 0) return
      pid = childPid(line)
      kill('SIGTERM')
    },
  )
  t.ok(pid > 0, 'the replay ran in a process of its own')
  t.equal(run.code, 128 + 15, 'the command ends as its replay did, by SIGTERM')
  t.equal(alive(pid), false, 'the replay was stopped with it')
})
