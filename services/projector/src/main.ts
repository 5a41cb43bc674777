// Composition root of the projector: builds the clients at the edge, checks each, applies the
// ClickHouse migrations, and wires consume -> ClickHouse -> live feed. `close()` drains.
import { Partitioners } from 'kafkajs'
import { migrate } from '../../../schemas/clickhouse/migrate.js'
import { createClickHouse } from '../../shared/src/clickhouse.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { loadProjectorConfig, type ProjectorConfig } from './config.js'
import { ClickHouseWriter } from './clickhouse/writer.js'
import { Projector } from './consume/projector.js'
import { Metrics } from './consume/metrics.js'
import { LiveHub } from './live/live-hub.js'
import { createProjectorServer } from './http.js'
import { openEventLog } from '../../shared/src/event-log.js'

export async function createProjectorService(cfg: ProjectorConfig, log: Logger) {
  const ch = await createClickHouse(cfg.clickhouse)
  const applied = await migrate(ch, cfg.clickhouse.database, { log: (m: string) => log.info(m) } as any)
  log.info('clickhouse migrations applied', { database: cfg.clickhouse.database, applied: (applied as any).applied?.map?.((m: any) => m.file) })

  const { kafka, codec } = await openEventLog(cfg, 'projector', log)

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()

  const metrics = new Metrics()
  const hub = new LiveHub()
  const writer = new ClickHouseWriter(ch, cfg.clickhouse.database)
  const projector = new Projector(kafka, producer, codec, writer, {
    groupId: cfg.groupId,
    topics: cfg.topics,
    maxRows: cfg.maxRows,
    maxWaitMs: cfg.maxWaitMs,
    retries: cfg.retries,
    fromBeginning: true,
  }, metrics, log)
  projector.onWritten((b) => hub.publish(b))

  const server = createProjectorServer({
    metrics,
    hub,
    bufferItems: cfg.liveBufferItems,
    auth: { liveToken: cfg.liveToken },
    health: async () => {
      const checks: Record<string, string> = {}
      let ok = true
      try {
        await ch.ping()
        checks.clickhouse = 'ok'
      } catch {
        checks.clickhouse = 'unreachable'
        ok = false
      }
      return { ok, checks }
    },
  })

  return {
    deps: { ch, kafka, codec, producer, metrics, hub, projector },
    async start() {
      await projector.start()
      await new Promise<void>((resolve) => server.listen(cfg.port, cfg.host, resolve))
      const addr = server.address()
      log.info('projector listening', { port: typeof addr === 'object' && addr ? addr.port : cfg.port })
      return server
    },
    async close() {
      server.close()
      server.closeAllConnections?.()
      await projector.stop()
      await producer.disconnect()
      await ch.close()
    },
  }
}

runService('projector', import.meta.url, loadProjectorConfig, createProjectorService)
