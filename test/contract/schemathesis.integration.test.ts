// The contract checked by a suite we did not write: Schemathesis (PyPI `schemathesis`, pinned and
// installed into .stack/test-venv by deploy/local/install-test-deps.sh, which `npm test` runs first)
// generates requests from the running ingest's own /openapi.json -- valid and invalid bodies, headers,
// methods, missing and bad authentication -- and runs every one of its checks on the answers: no 5xx,
// documented status codes, content types, headers and bodies, invalid data refused, valid data
// accepted. Any failure fails this test with Schemathesis's report.
//
// The account's plan has limits high enough that the run is not throttled (429s are documented, but
// would stop Schemathesis exploring); a fixed seed and a bounded number of examples per operation keep
// the run reproducible and to a few minutes.
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServices } from '../support/harness.js'

const ROOT = join(import.meta.dirname, '..', '..')
const BIN = join(process.env.STACK_DIR ?? join(ROOT, '.stack'), 'test-venv', 'bin', 'schemathesis')
const HIGH = 1_000_000_000
const PLANS = {
  schemathesis: { requestsPerMinute: HIGH, eventsPerSecond: HIGH, eventsPerMonth: HIGH, emailsPerMonth: 0 },
}

/** Runs in a directory of its own: Schemathesis keeps a cache of past failures (.schemathesis/) in its
 * working directory and replays them first, which would make one run depend on the last. */
function run(bin: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the terminal colour codes removed here
const COLOUR_CODES = /\x1b\[[0-9;?]*[a-zA-Z]/g

/** Schemathesis's report without its terminal animation: colours, spinners and progress bars dropped,
 * from the errors and failures on (or the last lines when there are none). */
function plain(output: string): string {
  const lines = output
    .replace(COLOUR_CODES, '')
    .split(/\r|\n/)
    .filter((l) => l.trim() && !/[⠀-⣿━🕐-🕧]/u.test(l))
  const from = lines.findIndex((l) => /=+ (ERRORS|FAILURES) =+/.test(l))
  return (from >= 0 ? lines.slice(from) : lines.slice(-40)).join('\n')
}

/**
 * Two of Schemathesis's checks judge a request whole: valid data must be accepted (2xx), invalid data
 * refused (4xx). A batch is judged item by item (H11): a batch with one invalid item among valid ones is
 * a 200 that names the invalid one, and one whose items all fail a rule no schema can state (an event
 * time that lands before 1970 once corrected for the batch's clock skew, H13) is a 400. So on /v1/events
 * those two checks are off; every other check runs there, and all of them on /v1/event, whose one event
 * is accepted or refused whole. test/contract/ingest-http.test.ts and validate.test.ts hold the per-item
 * answers.
 */
const BATCH_CHECKS = `checks.enabled = true

[[operations]]
include-path = "/v1/events"
checks.positive_data_acceptance.enabled = false
checks.negative_data_rejection.enabled = false
`

t.test('Schemathesis finds no failure in the ingest API against its own OpenAPI document', async (t) => {
  t.ok(existsSync(BIN), `Schemathesis is installed at ${BIN} (run: bash deploy/local/install-test-deps.sh)`)
  if (!existsSync(BIN)) return
  const s = await startServices(t, {
    projector: false,
    env: { PLANS_JSON: JSON.stringify(PLANS), IP_REQUESTS_PER_MINUTE: String(HIGH) },
  })
  const { key } = await s.createKey({ type: 'test', plan: 'schemathesis' })
  const cwd = mkdtempSync(join(tmpdir(), 'schemathesis-'))
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }))
  // Every check, on every operation but as BATCH_CHECKS says (in the file: a --checks option would
  // override its per-operation settings).
  writeFileSync(join(cwd, 'schemathesis.toml'), BATCH_CHECKS)
  const { code, output } = await run(
    BIN,
    [
      'run',
      `${s.ingestUrl}/openapi.json`,
      '--url',
      s.ingestUrl,
      '--header',
      `Authorization: Bearer ${key}`,
      // Every unique failure, not only the first of each operation.
      '--max-examples',
      '100',
      '--continue-on-failure',
      '--seed',
      '20261126',
      // One worker: with two, Hypothesis's example generation failed with a Runtime Error (FlakyFailure)
      // that no request caused.
      '--workers',
      '1',
      '--request-timeout',
      '20',
      '--output-truncate',
      'false',
    ],
    cwd,
  )
  const report = plain(output)
  // Line by line, so the report reads as Schemathesis printed it (curl to reproduce each failure).
  if (code !== 0) for (const line of report.split('\n')) t.comment(line)
  t.equal(code, 0, 'Schemathesis found no failure (its report is above when it did)')
  t.match(report, /Tested: 2\b/, 'both operations were tested')
  t.match(report, /\d+ generated/, 'test cases were generated')
})
