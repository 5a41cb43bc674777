// Clients for the command-line tools, built once from the same environment as the services.
import { createProducer } from '../services/shared/src/kafka/client.js'
import { readEnv, commonSpec, commonConfig, type CommonConfig } from '../services/shared/src/env.js'
import { createLogger } from '../services/shared/src/log.js'
import { AccountsAdmin } from '../services/shared/src/accounts/accounts-admin.js'
import { openEventLog } from '../services/shared/src/event-log.js'

export async function openAdmin(env: Record<string, string | undefined> = process.env): Promise<{ admin: AccountsAdmin; cfg: CommonConfig; close: () => Promise<void> }> {
  const cfg = commonConfig(readEnv(commonSpec, env))
  const log = createLogger(env.LOG_LEVEL === 'debug' ? 'debug' : 'warn', { svc: 'cli' })
  const { kafka, codec } = await openEventLog(cfg, 'cli', log)
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const admin = new AccountsAdmin(kafka, producer, codec, cfg.topics.accounts, log)
  await admin.start()
  return {
    admin,
    cfg,
    close: async () => {
      await admin.stop()
      await producer.disconnect()
    },
  }
}
