// A32, A39 and A40 against the real stack: a replay over sealed records runs again in a child started with
// Debian's jemalloc (the stack installs it), or glibc's larger per-thread cache without it, and, when its
// threads fill the cores, without the garbage collector's helper threads. What its user sees must not change:
// the same output and exit code, and a SIGTERM to the command stops the replay (the child is never left
// running on its own).
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { startServices, type TestServices } from '../support/harness.js'
import { runCli, type CliRun } from '../support/run-cli.js'
import { JEMALLOC_CONF, jemallocLibrary } from '../../services/projector/src/replay/own-process.js'

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

/** What a process runs its allocations with, read while it runs ('ended' when it was gone): the GLIBC_TUNABLES
 *  and MALLOC_CONF it was started with ('none' when unset), and whether a jemalloc is mapped into it. The
 *  dynamic loader maps the preloaded libraries with the C library, before the program runs: a process that
 *  has not been given a core since its exec is read again until the C library is there. */
async function allocatorOf(pid: number): Promise<string> {
  for (let tries = 0; tries < 500; tries++) {
    let environ: string[]
    let maps: string
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')
      maps = readFileSync(`/proc/${pid}/maps`, 'latin1')
    } catch {
      return 'ended'
    }
    const env = (name: string) => environ.find((v) => v.startsWith(`${name}=`))?.slice(name.length + 1) ?? 'none'
    if (maps.includes('libc.so'))
      return `tunables ${env('GLIBC_TUNABLES')}, conf ${env('MALLOC_CONF')}, jemalloc ${maps.includes('libjemalloc') ? 'mapped' : 'absent'}`
    await new Promise((r) => setTimeout(r, 10))
  }
  return 'no C library mapped after 5 s'
}
const WITH_JEMALLOC = `tunables none, conf ${JEMALLOC_CONF}, jemalloc mapped`
const WITH_TCACHE = `tunables ${TCACHE}, conf none, jemalloc absent`

const JEMALLOC = jemallocLibrary('auto', existsSync)

t.test('a replay runs in its own process, started with what it needs, and says so', async (t) => {
  const s = await startServices(t)
  const { key } = await s.createKey({ type: 'live' })
  const events = Array.from({ length: 30 }, (_, i) => ({ type: 'event', event: 'e', user: { id: `u${i}` } }))
  t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })).status, 200)
  const fresh = `${s.database}_gc${randomBytes(3).toString('hex')}`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }).then(() => undefined))

  const args = ['--topic', 'events', '--target', 'fresh', '--database', fresh, '--json']
  t.ok(JEMALLOC, 'the stack installed Debian’s jemalloc')
  const reads: Array<Promise<string>> = []
  const started = (line: string) => {
    if (childPid(line) > 0) reads.push(allocatorOf(childPid(line)))
  }
  const allocators = () => Promise.all(reads)
  const filled = await replayCli(s, [...args, '--workers', String(FILL)], started)
  t.equal(filled.code, 0, `the replay succeeds${filled.code ? `: ${filled.err.slice(-500)}` : ''}`)
  const pid = childPid(filled.err)
  t.ok(pid > 0, 'it says which process runs the replay')
  t.match(filled.err, `replay runs in process ${pid} without GC helper threads (A32), with jemalloc ${JEMALLOC} (A40)`)
  t.same(await allocators(), [WITH_JEMALLOC], 'that process runs with jemalloc, its pages never handed back')
  t.equal(alive(pid), false, 'that process has ended with the command')
  const summary = JSON.parse(filled.out.trim().split('\n').pop()!).summary
  t.equal(summary.events, 30, 'the child’s summary is the command’s output')
  t.equal((await s.query(`SELECT 1 FROM ${fresh}.events FINAL`)).length, 30)

  const one = await replayCli(s, [...args, '--workers', '1'], started)
  t.equal(one.code, 0)
  t.match(
    one.err,
    `replay runs in process ${childPid(one.err)} with jemalloc ${JEMALLOC} (A40)`,
    'one thread keeps the GC helpers',
  )
  t.same(await allocators(), [WITH_JEMALLOC, WITH_JEMALLOC])
  t.equal(JSON.parse(one.out.trim().split('\n').pop()!).summary.events, 30)

  const glibc = await replayCli(s, [...args, '--workers', '1'], started, { ...s.env, REPLAY_JEMALLOC: 'off' })
  t.equal(glibc.code, 0)
  t.match(glibc.err, `replay runs in process ${childPid(glibc.err)} with ${TCACHE} (A39)`, 'without jemalloc: A39')
  t.same(await allocators(), [WITH_JEMALLOC, WITH_JEMALLOC, WITH_TCACHE])
  t.equal(JSON.parse(glibc.out.trim().split('\n').pop()!).summary.events, 30)

  const preloaded = await replayCli(s, [...args, '--workers', '1'], started, { ...s.env, LD_PRELOAD: JEMALLOC! })
  t.equal(preloaded.code, 0)
  t.equal(childPid(preloaded.err), 0, 'one thread with jemalloc preloaded already runs in the command’s own process')
  t.equal(JSON.parse(preloaded.out.trim().split('\n').pop()!).summary.events, 30)

  const own = { ...s.env, REPLAY_JEMALLOC: 'off', GLIBC_TUNABLES: 'glibc.malloc.tcache_count=7' }
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
