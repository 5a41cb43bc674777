// Composition root of the projector: builds the clients at the edge, checks each, applies the
// ClickHouse migrations, and wires consume -> ClickHouse -> live feed. `close()` drains.
import { hostname } from 'node:os'
import { Partitioners } from 'kafkajs'
import { migrate } from '../../../schemas/clickhouse/migrate.js'
import { createClickHouse } from '../../shared/src/clickhouse.js'
import { followAccounts } from '../../shared/src/accounts-log.js'
import type { Logger } from '../../shared/src/log.js'
import { runService } from '../../shared/src/run-service.js'
import { KeyTable, hashKey } from '../../ingest/src/auth/index.js'
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

  const keys = new KeyTable()
  const follower = await followAccounts(kafka, codec, cfg.topics.accounts, (e) => {
    if (e.kind === 'Account') keys.applyAccount(e.value)
    else if (e.kind === 'Plan') keys.applyPlan(e.value)
    else keys.applyKey(e.value)
  }, log, { groupPrefix: `projector-accounts-${hostname()}` })

  const metrics = new Metrics()
  const hub = new LiveHub()
  const writer = new ClickHouseWriter(ch, cfg.clickhouse.database, {
    onDuplicates: (dropped) => {
      for (const d of dropped) {
        metrics.duplicatesDropped(d.kind, 1)
        log.debug('duplicate record dropped: event_id already stored', { kind: d.kind, event_id: d.event_id, account_id: d.account_id, message_id: d.message_id })
      }
    },
  })
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
    auth: {
      liveToken: cfg.liveToken,
      accountForKey: (key) => keys.lookup(hashKey(key))?.account.account_id,
    },
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
    deps: { ch, kafka, codec, producer, keys, metrics, hub, projector },
    async start() {
      await follower.ready
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
      await follower.stop()
      await producer.disconnect()
      await ch.close()
    },
  }
}

runService('projector', import.meta.url, loadProjectorConfig, createProjectorService)
