// npm run replay -- [options]: rebuild the ClickHouse projections from the Kafka topics (A1, A5).
// See `npm run replay -- --help` and schemas/clickhouse/README.md.
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { availableParallelism } from 'node:os'
import { loadProjectorConfig } from '../config.js'
import { Metrics } from '../consume/metrics.js'
import { createLogger } from '../../../shared/src/log.js'
import {
  formatProgress,
  formatSummary,
  parseReplayArgs,
  requestedThreads,
  runReplayCommand,
  USAGE,
  UsageError,
} from './index.js'
import { jemallocLibrary, ownProcess, rerunInOwnProcess } from './own-process.js'

async function main(argv: string[]): Promise<number> {
  const cmd = parseReplayArgs(argv)
  if (cmd === 'help') {
    console.log(USAGE)
    return 0
  }
  const cfg = loadProjectorConfig(process.env)
  const log = createLogger(process.env.LOG_LEVEL === 'debug' ? 'debug' : 'warn', { svc: 'replay' })
  const err = (line: string) => process.stderr.write(line + '\n')
  const own = ownProcess(
    requestedThreads(cfg, cmd),
    availableParallelism(),
    cfg.privacy.encrypt,
    process.execArgv,
    process.env,
    jemallocLibrary(cfg.replayJemalloc, existsSync),
  )
  if (own) return rerunInOwnProcess(own, argv, err)
  const metrics = cmd.metricsPort !== undefined ? new Metrics() : undefined
  const server = metrics ? await serveMetrics(metrics, cfg.host, cmd.metricsPort!) : undefined
  if (server) err(`metrics on http://${cfg.host}:${(server.address() as AddressInfo).port}/metrics`)
  const report = await runReplayCommand(cfg, cmd, {
    log,
    note: err,
    metrics,
    onProgress: (p, phase) => err(formatProgress(p).replace(/^replay/, phase)),
  }).finally(() => server?.close())
  if (cmd.json) {
    console.log(
      JSON.stringify({
        database: report.database,
        summary: report.summary,
        swap: report.swap,
        catch_up: report.catchUp,
      }),
    )
  } else {
    console.log(formatSummary(report.summary))
    console.log(`  into database: ${report.database}`)
    if (report.catchUp) console.log(formatSummary(report.catchUp, 'catch-up'))
  }
  return 0
}

function serveMetrics(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end()
      return
    }
    metrics.render().then(
      (body) => res.writeHead(200, { 'content-type': metrics.contentType }).end(body),
      () => res.writeHead(500).end(),
    )
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError) {
      console.error(`error: ${err.message}\n${USAGE}`)
      process.exit(2)
    }
    console.error(`replay failed: ${err?.stack ?? err}`)
    process.exit(1)
  },
)
