// A32 against the real stack: a replay whose threads fill the cores runs again in a child started without
// the garbage collector's helper threads. What its user sees must not change: the same output and exit
// code, and a SIGTERM to the command stops the replay (the child is never left running on its own).
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { startServices, type TestServices } from '../support/harness.js'
import { runCli, type CliRun } from '../support/run-cli.js'

const FILL = Math.max(2, availableParallelism())

/** `npm run replay -- ...` as its user runs it; `onLine` sees each stderr line as it comes. */
function replayCli(
  s: TestServices,
  args: string[],
  onLine?: (line: string, kill: (sig: NodeJS.Signals) => void) => void,
): Promise<CliRun> {
  return runCli('services/projector/src/replay/cli.ts', args, s.env, (child) =>
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
const childPid = (err: string) => Number(/run in process (\d+) without GC helper threads/.exec(err)?.[1] ?? 0)

t.test('a replay whose threads fill the cores runs in its own process, and says so', async (t) => {
  const s = await startServices(t)
  const { key } = await s.createKey({ type: 'live' })
  const events = Array.from({ length: 30 }, (_, i) => ({ type: 'event', event: 'e', user: { id: `u${i}` } }))
  t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })).status, 200)
  const fresh = `${s.database}_gc${randomBytes(3).toString('hex')}`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }).then(() => undefined))

  const args = ['--topic', 'events', '--target', 'fresh', '--database', fresh, '--json']
  const filled = await replayCli(s, [...args, '--workers', String(FILL)])
  t.equal(filled.code, 0, `the replay succeeds${filled.code ? `: ${filled.err.slice(-500)}` : ''}`)
  const pid = childPid(filled.err)
  t.ok(pid > 0, 'it says which process runs the replay')
  t.equal(alive(pid), false, 'that process has ended with the command')
  const summary = JSON.parse(filled.out.trim().split('\n').pop()!).summary
  t.equal(summary.events, 30, 'the child’s summary is the command’s output')
  t.equal((await s.query(`SELECT 1 FROM ${fresh}.events FINAL`)).length, 30)

  const one = await replayCli(s, [...args, '--workers', '1'])
  t.equal(one.code, 0)
  t.equal(childPid(one.err), 0, 'one thread runs in the command’s own process')
  t.equal(JSON.parse(one.out.trim().split('\n').pop()!).summary.events, 30)
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
