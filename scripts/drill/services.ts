// Ingest and projector as child processes (`node --import tsx <main.ts>`), so the drill's SIGKILL and
// SIGTERM are real signals to a real process. Each records when it exited on its own: that is a
// finding of the drill (a service must survive its dependencies' faults), not something to hide.
import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { nodeFlagsFor } from '../../services/shared/src/node-flags.js'

export class ServiceError extends Error {
  readonly code = 'DRILL_SERVICE'
}

export class ManagedService {
  private proc?: ChildProcess
  private exited?: Promise<void>
  private expectingExit = false
  private startedAt = 0
  /** Exits the drill did not cause, since the last call of takeUnexpectedExits(). */
  private unexpected: string[] = []

  constructor(
    readonly name: string,
    private readonly root: string,
    private readonly script: string,
    private env: Record<string, string>,
    readonly logFile: string,
    private readonly healthUrl: string,
  ) {}

  /** Settings the next start() gives the process on top of its own (a drill's master key rotation). */
  setEnv(over: Record<string, string>): void {
    this.env = { ...this.env, ...over }
  }

  alive(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null
  }

  get pid(): number | undefined {
    return this.proc?.pid
  }

  start(): void {
    if (this.alive()) throw new ServiceError(`${this.name} is already running (pid ${this.proc!.pid})`)
    const out = createWriteStream(this.logFile, { flags: 'a' })
    out.write(`\n=== drill: starting ${this.name} at ${new Date().toISOString()}\n`)
    // The node flags production gives the service, before the loader.
    const proc = spawn(
      process.execPath,
      [...nodeFlagsFor(this.name), '--import', 'tsx', join(this.root, this.script)],
      {
        cwd: this.root,
        env: { ...process.env, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    proc.stdout!.pipe(out, { end: false })
    proc.stderr!.pipe(out, { end: false })
    this.proc = proc
    this.expectingExit = false
    this.startedAt = Date.now()
    this.exited = new Promise((resolve) =>
      proc.once('exit', (code, signal) => {
        out.write(`=== drill: ${this.name} exited (code ${code}, signal ${signal})\n`)
        if (!this.expectingExit) {
          const ranFor = ((Date.now() - this.startedAt) / 1000).toFixed(1)
          this.unexpected.push(
            `${this.name} exited on its own (code ${code}${signal ? `, ${signal}` : ''}) after ${ranFor} s: ${this.lastMessage()}`,
          )
        }
        resolve()
      }),
    )
  }

  /** Starts and waits until /health answers 2xx; fails if the process exits first. */
  async startHealthy(timeoutMs = 120_000): Promise<number> {
    const t0 = Date.now()
    this.start()
    await this.waitHealthy(timeoutMs)
    return Date.now() - t0
  }

  async waitHealthy(timeoutMs = 120_000): Promise<void> {
    const end = Date.now() + timeoutMs
    while (Date.now() < end) {
      if (!this.alive())
        throw new ServiceError(`${this.name} exited before it was healthy; see ${this.logFile}:\n${this.tail(15)}`)
      try {
        const res = await fetch(this.healthUrl, { signal: AbortSignal.timeout(2000) })
        await res.arrayBuffer()
        if (res.ok) return
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new ServiceError(
      `${this.name} not healthy at ${this.healthUrl} after ${timeoutMs} ms; see ${this.logFile}:\n${this.tail(15)}`,
    )
  }

  /** Sends `sig` and waits for the exit; after SIGTERM, SIGKILL once `graceMs` has passed.
   * Returns how long the process took to exit and whether it needed the SIGKILL. */
  async signal(sig: NodeJS.Signals, graceMs = 30_000): Promise<{ ms: number; forced: boolean }> {
    if (!this.alive()) return { ms: 0, forced: false }
    const t0 = Date.now()
    this.expectingExit = true
    this.proc!.kill(sig)
    let forced = false
    const timer = setTimeout(() => {
      forced = true
      this.proc?.kill('SIGKILL')
    }, graceMs)
    await this.exited
    clearTimeout(timer)
    return { ms: Date.now() - t0, forced }
  }

  takeUnexpectedExits(): string[] {
    const out = this.unexpected
    this.unexpected = []
    return out
  }

  /** The last log line that is not a stack frame: what the process said before it died. */
  private lastMessage(): string {
    const lines = this.tail(60)
      .split(' | ')
      .filter((l) => !/^\s*at /.test(l) && !l.startsWith('=== drill') && l.trim())
    return (lines.at(-1) ?? '').trim().slice(0, 240)
  }

  tail(lines: number): string {
    try {
      return readFileSync(this.logFile, 'utf8')
        .trimEnd()
        .split('\n')
        .slice(-lines)
        .map((l) => l.slice(0, 300))
        .join(' | ')
    } catch {
      return ''
    }
  }
}
