// A11: the test harness and the services it starts in-process run the vendored kafkajs, as the
// compiled services do (test/build/compiled.integration.test.ts): each service says so in its
// metrics (kafka/client-info.ts), and no kafkajs file from anywhere but packages/kafkajs is loaded.
// Before A11 the harness loaded kafkajs before the runtime replacements, so its ingest ran plain
// kafkajs while production ran the replacements.
import t from 'tap'
import { createRequire } from 'node:module'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { startServices } from '../support/harness.js'
import '../support/dashboard-harness.js'

const vendored = join(import.meta.dirname, '..', '..', 'packages', 'kafkajs')
const require = createRequire(import.meta.url)

t.test("the harness's in-process ingest and projector report the vendored Kafka client", async (t) => {
  const s = await startServices(t)
  const ingest = await (await fetch(`${s.ingestAdminUrl}/metrics`)).text()
  t.match(ingest, /^ingest_kafka_client_info\{version="2\.2\.4",vendored="1"\} 1$/m, 'ingest')
  const projector = await (await fetch(`${s.projectorUrl}/metrics`)).text()
  t.match(projector, /^projector_kafka_client_info\{version="2\.2\.4",vendored="1"\} 1$/m, 'projector')
})

t.test('the harness process loads kafkajs files only from packages/kafkajs', async (t) => {
  const loaded = Object.keys(require.cache).filter((file) => /[/\\]kafkajs[/\\]/.test(file) && !/@kafkajs/.test(file))
  t.ok(loaded.length > 50, `kafkajs is loaded (${loaded.length} files)`)
  t.same(
    loaded.filter((file) => !realpathSync(file).startsWith(vendored + '/')),
    [],
    'every kafkajs file loaded is the vendored one',
  )
  for (const file of ['producer/groupMessagesPerPartition.js', 'protocol/request.js']) {
    t.ok(require.cache[join(vendored, 'src', file)], `the vendored ${file} is the one loaded`)
  }
})
