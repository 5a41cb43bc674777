// The process a replay runs in. Two settings that only a process's start can make, so `npm run replay`
// runs again in a child started with what it lacks:
// - A32: when its threads fill the machine's cores, no garbage-collector helper threads. Those helpers
//   (parallel scavenges, concurrent marking and sweeping) use cores a replay thread is not using; when every
//   core has a part of the replay (and ClickHouse beside it), each helper takes its core from them and costs
//   more than it saves (BENCHMARKS.md, "The replay's garbage collector when its threads fill the cores"). V8
//   reads the flag when it makes a heap: set later, it crashed the process's own heap in the middle of a
//   marking.
// - A39: when records are sealed, glibc's per-thread cache of freed blocks holds more of them. Each sealed
//   record's `decipher.update` allocates its output and V8's bookkeeping of it (about five small blocks), and
//   a young-generation collection frees thousands of them at once; past the cache's default 7 a size, glibc
//   merges them into its bins and the next allocations split them again (BENCHMARKS.md, "The replay's
//   allocator (A39)"); a replay of records in clear was a little slower with it. glibc reads GLIBC_TUNABLES
//   when the process starts.
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

export const SINGLE_THREADED_GC = '--single-threaded-gc'

/** A39: glibc's tunable for the blocks a thread keeps of each size, and the count the replay starts with. */
export const TCACHE_TUNABLE = 'glibc.malloc.tcache_count'
export const TCACHE_COUNT = 16_384

/** Set in the child's environment: a child never starts another, whatever it finds (a child that did, for a
 *  setting it was meant to get and did not, would start one after another without end). */
export const OWN_PROCESS_MARK = 'REPLAY_OWN_PROCESS'

/** Whether a replay of `threads` parts on `cores` cores should collect its garbage in its own threads. */
export function gcInPartsOnly(threads: number, cores: number): boolean {
  return threads > 1 && threads >= cores
}

/** A39: GLIBC_TUNABLES with the per-thread cache raised; undefined when the value given sets that count
 *  already (an operator's choice stands, and the child started with ours does not start another). */
export function withTcache(tunables: string | undefined): string | undefined {
  if (tunables?.split(':').some((t) => t.startsWith(`${TCACHE_TUNABLE}=`))) return undefined
  const ours = `${TCACHE_TUNABLE}=${TCACHE_COUNT}`
  return tunables ? `${tunables}:${ours}` : ours
}

/** How the replay's own process is started, and why (for the line that names it). */
export interface OwnProcess {
  execArgv: string[]
  env: NodeJS.ProcessEnv
  reasons: string[]
}

/** The process the replay must run in, or undefined when this is it (started with every setting it needs).
 *  `sealed`: the deployment seals its records (PRIVACY_ENCRYPT), so the replay opens them. */
export function ownProcess(
  threads: number,
  cores: number,
  sealed: boolean,
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): OwnProcess | undefined {
  if (env[OWN_PROCESS_MARK] === '1') return undefined
  const flag = gcInPartsOnly(threads, cores) && !execArgv.includes(SINGLE_THREADED_GC)
  const tunables = sealed ? withTcache(env.GLIBC_TUNABLES) : undefined
  if (!flag && tunables === undefined) return undefined
  return {
    execArgv: flag ? [SINGLE_THREADED_GC, ...execArgv] : [...execArgv],
    env: { ...env, ...(tunables === undefined ? {} : { GLIBC_TUNABLES: tunables }), [OWN_PROCESS_MARK]: '1' },
    reasons: [
      ...(flag ? ['without GC helper threads (A32)'] : []),
      ...(tunables !== undefined ? [`with ${TCACHE_TUNABLE}=${TCACHE_COUNT} (A39)`] : []),
    ],
  }
}

/**
 * Runs this command again in a child started as `own` says, its output this process's; a SIGINT or
 * SIGTERM sent to this process is passed on, so the replay is never left running without it. Resolves
 * with the child's exit code (128 + the signal's number when a signal ended it).
 */
export function rerunInOwnProcess(
  own: OwnProcess,
  argv: readonly string[],
  note: (line: string) => void,
): Promise<number> {
  const child = spawn(process.execPath, [...own.execArgv, process.argv[1]!, ...argv], {
    stdio: 'inherit',
    env: own.env,
  })
  note(`replay runs in process ${child.pid} ${own.reasons.join(', ')}`)
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
