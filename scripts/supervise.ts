// Keeps a service of `npm start` running: a child that exits without being asked to is started again,
// with a log line saying so, after a delay that doubles while it keeps crashing soon after its start.
// After several such crashes in a row it gives up with a message, rather than loop for ever (H27).
import type { ChildProcess } from 'node:child_process'

export interface RestartPolicy {
  initialDelayMs: number
  maxDelayMs: number
  /** A crash this soon after the start counts as "immediate". */
  quickCrashMs: number
  /** Immediate crashes in a row before giving up. */
  maxQuickCrashes: number
}

export const DEFAULT_POLICY: RestartPolicy = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  quickCrashMs: 10_000,
  maxQuickCrashes: 5,
}

export type Decision =
  | { action: 'restart'; delayMs: number; quickCrashes: number }
  | { action: 'give-up'; quickCrashes: number }

/** What to do after a crash of a child that ran `ranMs`, `quickCrashes` immediate crashes in a row before it. */
export function afterCrash(quickCrashes: number, ranMs: number, p: RestartPolicy = DEFAULT_POLICY): Decision {
  // A child that ran a while crashed for a new reason: start the count again.
  if (ranMs >= p.quickCrashMs) return { action: 'restart', delayMs: p.initialDelayMs, quickCrashes: 0 }
  const n = quickCrashes + 1
  if (n >= p.maxQuickCrashes) return { action: 'give-up', quickCrashes: n }
  return { action: 'restart', delayMs: Math.min(p.maxDelayMs, p.initialDelayMs * 2 ** (n - 1)), quickCrashes: n }
}

export class Supervisor {
  private child?: ChildProcess
  private stopping = false
  private quickCrashes = 0
  private restartTimer?: NodeJS.Timeout
  /** Set once the supervisor has given up; the message says why. */
  gaveUp?: string
  restarts = 0

  constructor(
    readonly name: string,
    private readonly spawnChild: () => ChildProcess,
    private readonly log: (line: string) => void,
    private readonly onGiveUp: (message: string) => void,
    private readonly policy: RestartPolicy = DEFAULT_POLICY,
  ) {}

  get current(): ChildProcess | undefined {
    return this.child
  }

  start(): void {
    const startedAt = Date.now()
    const child = this.spawnChild()
    this.child = child
    child.once('exit', (code, signal) => {
      if (this.stopping) return
      const ranMs = Date.now() - startedAt
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
      const d = afterCrash(this.quickCrashes, ranMs, this.policy)
      this.quickCrashes = d.quickCrashes
      if (d.action === 'give-up') {
        this.gaveUp = `${this.name} ${how} ${d.quickCrashes} times in a row within ${this.policy.quickCrashMs / 1000} s of starting; giving up (its last lines are above)`
        this.log(this.gaveUp)
        this.onGiveUp(this.gaveUp)
        return
      }
      this.log(
        `${this.name} ${how} after ${(ranMs / 1000).toFixed(1)} s; restarting it in ${(d.delayMs / 1000).toFixed(1)} s`,
      )
      this.restartTimer = setTimeout(() => {
        if (this.stopping) return
        this.restarts++
        this.start()
      }, d.delayMs)
    })
  }

  /** Stops the child (no restart) and resolves once it has exited; SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 8000): Promise<void> {
    this.stopping = true
    clearTimeout(this.restartTimer)
    const c = this.child
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    const exited = new Promise((r) => c.once('exit', r))
    c.kill(signal)
    const timer = setTimeout(() => c.kill('SIGKILL'), graceMs)
    await exited
    clearTimeout(timer)
  }
}
