// segment-analytics-python and rudder-sdk-python (PyPI), unchanged, in the project's test venv
// (deploy/local/install-test-deps.sh; SEGMENT_PYTHON overrides the interpreter), each sending the
// scenario of test/support/segment-scenario.ts (segment_python_client.py) to our ingest, which is
// killed (SIGKILL) and restarted while they send: each library retries what failed with the same
// messageIds, and ClickHouse holds every call exactly once.
import t from 'tap'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { startServices } from '../support/harness.js'
import { checkScenario, PEOPLE } from '../support/segment-scenario.js'
import { killableIngest } from '../../sdk/testing/ingest-process.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PYTHON = process.env.SEGMENT_PYTHON || `${process.env.STACK_DIR || ROOT + '.stack'}/test-venv/bin/python`
const SCRIPT = fileURLToPath(new URL('./segment_python_client.py', import.meta.url))

for (const lib of ['segment', 'rudder'] as const) {
  t.test(
    `${lib === 'segment' ? 'segment-analytics-python' : 'rudder-sdk-python'}: every call type, through an ingest killed mid-stream, stored exactly once`,
    async (t) => {
      const s = await startServices(t, { ingest: false })
      const { key, accountId } = await s.createKey({ plan: 'unlimited', type: 'live' })
      const ingest = await killableIngest(t, { ...s.env, LOG_LEVEL: 'warn' }, key)

      const run = randomBytes(4).toString('hex')
      const py = spawn(PYTHON, [SCRIPT, lib, ingest.url, key, run, String(PEOPLE)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      py.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)))
      let result: { message_ids: string[]; errors: string[] } | undefined
      let killed = false
      for await (const line of createInterface({ input: py.stdout })) {
        if (line === 'STARTED') {
          await ingest.killAndRestart()
          killed = true
        } else if (line.startsWith('{')) result = JSON.parse(line)
      }
      const code = await new Promise<number | null>((r) => (py.exitCode !== null ? r(py.exitCode) : py.once('exit', r)))
      t.equal(code, 0, `the client exited cleanly: ${stderr.slice(-2000)}`)
      t.ok(killed, 'the ingest was killed while the library sent')
      t.same(result?.errors, [], 'the library reported no failure')
      await checkScenario(t, s, accountId, run, new Set(result?.message_ids ?? []))
    },
  )
}
