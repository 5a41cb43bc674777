// A11: every process runs the same Kafka client, the vendored kafkajs in packages/kafkajs (its
// CHANGES.md lists how it differs from upstream). This fails if any entry point would resolve
// `kafkajs` to another copy (an npm kafkajs installed over the workspace link, a nested copy). The
// compiled services report the client they run as a metric (test/build/compiled.integration.test.ts);
// the harness's in-process services too, and the harness loads no other kafkajs file
// (test/build/kafka-client.integration.test.ts).
import t from 'tap'
import { createRequire } from 'node:module'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(fileURLToPath(import.meta.url), '..', '..', '..')
const vendored = join(root, 'packages', 'kafkajs')

// The processes: the services and CLIs (as TypeScript and as compiled to dist/), the test harness,
// the admin and drill scripts and the bench.
const ENTRIES = [
  'services/ingest/src/main.ts',
  'services/projector/src/main.ts',
  'services/dashboard/src/main.ts',
  'services/projector/src/replay/cli.ts',
  'services/shared/src/kafka/client.ts',
  'dist/services/ingest/src/main.js',
  'dist/services/projector/src/main.js',
  'dist/services/dashboard/src/main.js',
  'dist/services/projector/src/replay/cli.js',
  'dist/scripts/keys.js',
  'test/support/harness.ts',
  'scripts/admin-context.ts',
  'scripts/drill/main.ts',
  'bench/run.ts',
]

t.test('kafkajs resolves to packages/kafkajs from every entry point', async (t) => {
  for (const entry of ENTRIES) {
    const resolved = realpathSync(createRequire(join(root, entry)).resolve('kafkajs'))
    t.equal(resolved, join(vendored, 'index.js'), `${entry} runs the vendored kafkajs`)
  }
})
