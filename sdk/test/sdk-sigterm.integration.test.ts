// The documented SIGTERM hook: a Node process with events queued (not yet due: a long flush
// interval) gets SIGTERM; closeOnSignals flushes them and the process exits 0; they are stored.
import t from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startServices } from '../../test/support/harness.js'

t.test('SIGTERM: closeOnSignals flushes the queue before the process exits', async (t) => {
  const s = await startServices(t)
  const { key } = await s.createKey({ type: 'test' })
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('../testing/sigterm-child.ts', import.meta.url)), s.ingestUrl, key, '25'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const line = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) resolve(out.split('\n')[0])
    })
    child.once('exit', (code) => reject(new Error(`child exited ${code} early: ${err}`)))
  })
  const { ids, queued } = JSON.parse(line) as { ids: string[]; queued: number }
  t.equal(queued, 25, 'all queued, none sent yet')
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'exit code 0 after the flush')
  t.equal(err, '', 'nothing reported')
  const rows = await s.waitForRows<{ message_id: string }>(
    `SELECT message_id FROM ${s.database}.events FINAL`,
    25,
    30_000,
  )
  t.same(rows.map((r) => r.message_id).sort(), [...ids].sort())
})
