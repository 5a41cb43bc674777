// The ingest service as a child process (`node --import tsx services/ingest/src/main.ts`), so a test
// can SIGKILL it mid-stream and start it again on the same port, as a crash and restart would.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { waitUntil } from '../../test/support/harness.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export async function freePort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as { port: number }).port
  await new Promise((r) => srv.close(r))
  return port
}

export interface IngestProcess {
  url: string
  child: ChildProcess
  /** Resolves when the process has exited. */
  exited: Promise<number | null>
  stderr: () => string
}

export function spawnIngest(env: Record<string, string>, port: number): IngestProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/ingest/src/main.ts'], {
    cwd: ROOT,
    // Admin listener (readiness, metrics) on any free port: this helper waits through the API instead.
    env: { ...env, INGEST_HOST: '127.0.0.1', INGEST_PORT: String(port), INGEST_ADMIN_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr!.on('data', (d) => (err = (err + d).slice(-20_000)))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  return { url: `http://127.0.0.1:${port}`, child, exited, stderr: () => err }
}

/** Waits until the ingest answers and knows `key` (a 400 for an empty batch, not a 401). */
export async function waitReady(p: IngestProcess, key: string, timeoutMs = 60_000): Promise<void> {
  await waitUntil(
    async () => {
      if (p.child.exitCode !== null) throw new Error(`ingest exited with ${p.child.exitCode}: ${p.stderr()}`)
      try {
        const res = await fetch(p.url + '/v1/events', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{}',
        })
        return res.status === 400
      } catch {
        return false
      }
    },
    timeoutMs,
    'the ingest child process to accept the key',
  )
}

/** An ingest child process (env: the test's services) that the test can kill (SIGKILL, no drain) and
 *  start again on the same port; killed when the test ends. Ready for `key` before it returns. */
export async function killableIngest(
  t: { teardown(fn: () => unknown): void },
  env: Record<string, string>,
  key: string,
): Promise<{ url: string; killAndRestart(): Promise<void> }> {
  const port = await freePort()
  let ingest = spawnIngest(env, port)
  const kill = async () => {
    ingest.child.kill('SIGKILL')
    await ingest.exited
  }
  t.teardown(kill)
  await waitReady(ingest, key)
  return {
    url: ingest.url,
    async killAndRestart() {
      await kill()
      ingest = spawnIngest(env, port)
    },
  }
}
