// The process a replay runs in. Two settings that only a process's start can make, so `npm run replay`
// runs again in a child started with what it lacks:
// - A32: when its threads fill the machine's cores, no garbage-collector helper threads. Those helpers
//   (parallel scavenges, concurrent marking and sweeping) use cores a replay thread is not using; when every
//   core has a part of the replay (and ClickHouse beside it), each helper takes its core from them and costs
//   more than it saves (BENCHMARKS.md, "The replay's garbage collector when its threads fill the cores"). V8
//   reads the flag when it makes a heap: set later, it crashed the process's own heap in the middle of a
//   marking.
// - A39: when records are sealed (and A40's jemalloc is not there), glibc's per-thread cache of freed blocks
//   holds more of them. Each sealed record's `decipher.update` allocates its output and V8's bookkeeping of it
//   (about five small blocks), and a young-generation collection frees thousands of them at once; past the
//   cache's default 7 a size, glibc merges them into its bins and the next allocations split them again
//   (BENCHMARKS.md, "The replay's allocator (A39)"); a replay of records in clear was a little slower with it.
//   glibc reads GLIBC_TUNABLES when the process starts.
// - A40: when records are sealed and Debian's jemalloc is on the machine, the child runs with it instead
//   (LD_PRELOAD), and it never hands freed pages back to the system (MALLOC_CONF): a replay is a batch that
//   ends, and every page it gave back it faulted in again for the next fetch, insert or young generation.
//   Against A39's cache it took less CPU over sealed records at the same peak RSS, and made no difference
//   over records in clear (BENCHMARKS.md, "The replay's allocator: jemalloc (A40)"). Without the library,
//   A39's cache as before. The dynamic loader reads LD_PRELOAD when the process starts.
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

export const SINGLE_THREADED_GC = '--single-threaded-gc'

/** A39: glibc's tunable for the blocks a thread keeps of each size, and the count the replay starts with. */
export const TCACHE_TUNABLE = 'glibc.malloc.tcache_count'
export const TCACHE_COUNT = 16_384

/** A40: the jemalloc a replay preloads when REPLAY_JEMALLOC is `auto`: Debian's libjemalloc2 package (the
 *  Dockerfile installs it), in the multiarch directory of this machine's architecture. */
export const JEMALLOC_FILE = 'libjemalloc.so.2'
const MULTIARCH: Record<string, string> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }

/** A40: freed pages are kept for the process's next allocations, never purged (jemalloc's decay off). */
export const JEMALLOC_CONF = 'dirty_decay_ms:-1,muzzy_decay_ms:-1'

/** A40: the library REPLAY_JEMALLOC names: `off`, none; `auto`, Debian's when it is installed; else that path. */
export function jemallocLibrary(
  setting: string,
  exists: (path: string) => boolean,
  arch: string = process.arch,
): string | undefined {
  if (setting === 'off') return undefined
  if (setting !== 'auto') return setting
  const dir = MULTIARCH[arch]
  if (dir === undefined) return undefined
  const path = `/usr/lib/${dir}/${JEMALLOC_FILE}`
  return exists(path) ? path : undefined
}

/** A40: LD_PRELOAD and MALLOC_CONF with `library` preloaded first; undefined when LD_PRELOAD given names a
 *  jemalloc already (an operator's choice stands). An operator's MALLOC_CONF stands too. */
export function withJemalloc(
  env: NodeJS.ProcessEnv,
  library: string,
): { LD_PRELOAD: string; MALLOC_CONF: string } | undefined {
  const preload = env.LD_PRELOAD ?? ''
  if (preload.split(/[\s:]+/).some((p) => p.includes('libjemalloc'))) return undefined
  return {
    LD_PRELOAD: preload.trim() === '' ? library : `${library}:${preload}`,
    MALLOC_CONF: env.MALLOC_CONF || JEMALLOC_CONF,
  }
}

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
 *  `sealed`: the deployment seals its records (PRIVACY_ENCRYPT), so the replay opens them; `jemalloc`: the
 *  library jemallocLibrary() found, if any (A40). */
export function ownProcess(
  threads: number,
  cores: number,
  sealed: boolean,
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
  jemalloc?: string,
): OwnProcess | undefined {
  if (env[OWN_PROCESS_MARK] === '1') return undefined
  const flag = gcInPartsOnly(threads, cores) && !execArgv.includes(SINGLE_THREADED_GC)
  const allocator = sealed ? allocatorOf(env, jemalloc) : undefined
  if (!flag && allocator === undefined) return undefined
  return {
    execArgv: flag ? [SINGLE_THREADED_GC, ...execArgv] : [...execArgv],
    env: { ...env, ...allocator?.env, [OWN_PROCESS_MARK]: '1' },
    reasons: [...(flag ? ['without GC helper threads (A32)'] : []), ...(allocator ? [allocator.reason] : [])],
  }
}

/** A40 when jemalloc is there (and not preloaded already), else A39 (unless the tunables set the cache). */
function allocatorOf(
  env: NodeJS.ProcessEnv,
  jemalloc: string | undefined,
): { env: NodeJS.ProcessEnv; reason: string } | undefined {
  if (jemalloc !== undefined) {
    const preload = withJemalloc(env, jemalloc)
    return preload === undefined ? undefined : { env: preload, reason: `with jemalloc ${jemalloc} (A40)` }
  }
  const tunables = withTcache(env.GLIBC_TUNABLES)
  return tunables === undefined
    ? undefined
    : { env: { GLIBC_TUNABLES: tunables }, reason: `with ${TCACHE_TUNABLE}=${TCACHE_COUNT} (A39)` }
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
