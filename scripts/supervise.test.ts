import t from 'tap'
import { spawn } from 'node:child_process'
import { afterCrash, Supervisor, type RestartPolicy } from './supervise.js'

const policy: RestartPolicy = { initialDelayMs: 1000, maxDelayMs: 5000, quickCrashMs: 10_000, maxQuickCrashes: 5 }

t.test('immediate crashes back off, doubling, then give up', async (t) => {
  let n = 0
  const delays: number[] = []
  let d = afterCrash(n, 200, policy)
  while (d.action === 'restart') {
    delays.push(d.delayMs)
    n = d.quickCrashes
    d = afterCrash(n, 200, policy)
  }
  t.same(delays, [1000, 2000, 4000, 5000], 'capped at maxDelayMs')
  t.same(d, { action: 'give-up', quickCrashes: 5 })
})

t.test('a crash after a long run starts the count again', async (t) => {
  t.same(afterCrash(4, 60_000, policy), { action: 'restart', delayMs: 1000, quickCrashes: 0 })
})

const fast: RestartPolicy = { initialDelayMs: 5, maxDelayMs: 20, quickCrashMs: 60_000, maxQuickCrashes: 3 }
const node = (code: string) => () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' })

t.test('a child that keeps crashing at start is restarted, then given up on with a message', async (t) => {
  const lines: string[] = []
  let starts = 0
  const gaveUp = new Promise<string>((resolve) => {
    const s = new Supervisor(
      'svc',
      () => (starts++, node('process.exit(3)')()),
      (l) => lines.push(l),
      resolve,
      fast,
    )
    s.start()
  })
  const msg = await gaveUp
  t.equal(starts, 3)
  t.match(msg, /svc exited with code 3 3 times in a row within 60 s of starting; giving up/)
  t.match(lines[0], /svc exited with code 3 after \d+\.\d s; restarting it in 0\.0 s/)
  t.equal(lines.length, 3, 'two restart lines and the give-up line')
})

t.test('a child killed from outside is restarted with a log line; stop() does not restart', async (t) => {
  const lines: string[] = []
  const s = new Supervisor(
    'svc',
    node('setInterval(() => {}, 1000)'),
    (l) => lines.push(l),
    () => t.fail('gave up'),
    fast,
  )
  s.start()
  const first = s.current!
  await new Promise((r) => first.once('spawn', r))
  first.kill('SIGKILL')
  while (s.current === first) await new Promise((r) => setTimeout(r, 10))
  t.match(lines, [/svc was killed by SIGKILL after .* restarting it/])
  t.equal(s.restarts, 1)
  await s.stop()
  t.equal(lines.length, 1, 'stopping is not a crash')
  t.not(s.current!.signalCode ?? s.current!.exitCode, null, 'the child has exited')
})
