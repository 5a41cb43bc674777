// A32: a replay whose threads fill the machine's cores runs without V8's garbage-collector helper
// threads. Those helpers (parallel scavenges, concurrent marking and sweeping) use cores a replay thread
// is not using; when every core has a part of the replay (and ClickHouse beside it), each helper takes
// its core from them and costs more than it saves. Measured on two cores: a sealed replay in two threads
// faster with the helpers off, one in one thread slower (BENCHMARKS.md, "The replay's garbage collector
// when its threads fill the cores"). V8 reads the flag when it makes a heap: set later, it crashed the
// process's own heap in the middle of a marking, so the command runs again in a process started with it.
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

export const SINGLE_THREADED_GC = '--single-threaded-gc'

/** Whether a replay of `threads` parts on `cores` cores should collect its garbage in its own threads. */
export function gcInPartsOnly(threads: number, cores: number): boolean {
  return threads > 1 && threads >= cores
}

/** Whether this process must start the replay again with the flag (it was not started with it). */
export function needsOwnGcProcess(threads: number, cores: number, execArgv: readonly string[]): boolean {
  return gcInPartsOnly(threads, cores) && !execArgv.includes(SINGLE_THREADED_GC)
}

/**
 * Runs this command again in a child started with the flag, its output this process's; a SIGINT or
 * SIGTERM sent to this process is passed on, so the replay is never left running without it. Resolves
 * with the child's exit code (128 + the signal's number when a signal ended it).
 */
export function rerunWithOwnGc(argv: readonly string[], note: (line: string) => void): Promise<number> {
  const child = spawn(process.execPath, [SINGLE_THREADED_GC, ...process.execArgv, process.argv[1]!, ...argv], {
    stdio: 'inherit',
  })
  note(`replay threads fill the cores: run in process ${child.pid} without GC helper threads (A32)`)
  const pass = (signal: NodeJS.Signals) => child.kill(signal)
  process.on('SIGINT', pass)
  process.on('SIGTERM', pass)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      process.off('SIGINT', pass)
      process.off('SIGTERM', pass)
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))
    })
  })
}
