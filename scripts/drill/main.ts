// npm run drill -- [options]: fault drills with full reconciliation (docs/reliability.md).
// Exits 1 when an acknowledged event was lost or duplicated, an answer broke the contract or a
// service died on its own; 2 on bad options.
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseOptions, OptionsError, USAGE, type DrillOptions } from './options.js'
import { runDrill } from './run-drill.js'
import { parseClusterOptions, CLUSTER_USAGE, type ClusterDrillOptions } from './cluster-options.js'
import { runClusterDrill } from './run-cluster-drill.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

async function main(): Promise<number> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(`${USAGE}\n\n${CLUSTER_USAGE}`)
    return 0
  }
  if (process.argv.includes('--profile') || process.argv.some((a) => a.startsWith('--profile='))) return clusterMain()
  let opts: DrillOptions
  try {
    opts = parseOptions(process.argv.slice(2), process.env, ROOT)
  } catch (err) {
    if (err instanceof OptionsError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`drill: ${(err as Error).message}\n${USAGE}`)
      return 2
    }
    throw err
  }
  const r = await runDrill(ROOT, opts)
  console.log(
    `\nDrill ${r.runId}: ${r.seconds} s, faults ${opts.faults.join(', ')}, ${opts.rate} events/s + ${opts.batchRate} batch(es)/s of ${opts.batchSize}`,
  )
  console.log(
    `topic: ${r.topic.records} records, ${r.topic.distinct} distinct event_ids; ClickHouse (FINAL): ${r.clickhouse.distinct} distinct${r.skipped ? `; ${r.skipped} requests not sent (too many in flight)` : ''}\n`,
  )
  console.log(r.text)
  if (opts.markdownFile) writeFileSync(opts.markdownFile, r.markdown + '\n')
  if (opts.jsonFile) writeFileSync(opts.jsonFile, JSON.stringify(r, null, 2) + '\n')
  console.log(`\nmarkdown table: ${opts.markdownFile ?? join(r.logDir, 'result.md')}; service logs: ${r.logDir}`)
  if (r.verdict.ok) {
    console.log('\nPASS: every acknowledged event is on the topic and in ClickHouse exactly once.')
    return 0
  }
  console.log(`\nFAIL:\n${r.verdict.failures.map((f) => `  - ${f}`).join('\n')}`)
  return 1
}

/** npm run drill -- --profile cluster: the drills on the cluster profile (docs/scaling.md). */
async function clusterMain(): Promise<number> {
  let opts: ClusterDrillOptions
  try {
    opts = parseClusterOptions(process.argv.slice(2), process.env, ROOT)
  } catch (err) {
    if (err instanceof OptionsError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`drill: ${(err as Error).message}\n${CLUSTER_USAGE}`)
      return 2
    }
    throw err
  }
  const r = await runClusterDrill(ROOT, opts)
  console.log(
    `\nCluster drill ${r.runId}: ${r.seconds} s (cluster started in ${r.clusterStartSeconds} s), parts ${opts.parts.join(', ')}, ${opts.rate} events/s + ${opts.batchRate} batch(es)/s of ${opts.batchSize} through HAProxy`,
  )
  console.log(
    `topic: ${r.topic.records} records, ${r.topic.distinct} distinct event_ids; ClickHouse (FINAL): ${r.clickhouse.distinct} distinct${r.skipped ? `; ${r.skipped} requests not sent (too many in flight)` : ''}\n`,
  )
  console.log(r.text)
  if (opts.markdownFile) writeFileSync(opts.markdownFile, r.markdown + '\n')
  if (opts.jsonFile) writeFileSync(opts.jsonFile, JSON.stringify(r, null, 2) + '\n')
  console.log(
    `\nmarkdown table: ${opts.markdownFile ?? join(r.logDir, 'result.md')}; service logs: ${opts.clusterDir}/logs`,
  )
  if (r.verdict.ok) {
    console.log(
      `\nPASS: ${r.rateLimit ? 'the per-minute limit held across both instances, and ' : ''}every acknowledged event is on the topic and in ClickHouse exactly once.`,
    )
    return 0
  }
  console.log(`\nFAIL:\n${r.verdict.failures.map((f) => `  - ${f}`).join('\n')}`)
  return 1
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`drill failed: ${err?.stack ?? err}`)
    process.exit(1)
  },
)
