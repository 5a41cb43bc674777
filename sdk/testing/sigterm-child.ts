// A Node process that queues events and waits: sdk-sigterm.integration.test.ts sends it SIGTERM and
// expects closeOnSignals to flush them before the process exits. Args: baseUrl apiKey count.
import { TrackingClient, closeOnSignals } from '../src/index.js'

const [baseUrl, apiKey, count] = process.argv.slice(2)
const client = new TrackingClient({
  apiKey,
  baseUrl,
  flushInterval: 600_000,
  onError: (e) => process.stderr.write(`onError ${e.code}: ${e.message}\n`),
})
closeOnSignals(client)
const ids = Array.from({ length: Number(count) }, (_, i) => client.track('before_sigterm', { i }, { user: 'user_1' }))
process.stdout.write(JSON.stringify({ ids, queued: client.stats().queued }) + '\n')
