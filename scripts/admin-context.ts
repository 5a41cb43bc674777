// Clients for the command-line tools, built once from the same environment as the services.
import { createProducer, type Kafka, type Producer } from '../services/shared/src/kafka/client.js'
import { readEnv, commonSpec, commonConfig, type CommonConfig } from '../services/shared/src/env.js'
import { createLogger, type Logger } from '../services/shared/src/log.js'
import { AccountsAdmin, AdminError } from '../services/shared/src/accounts/accounts-admin.js'
import { openEventLog } from '../services/shared/src/event-log.js'
import type { Codec } from '../schemas/codec.js'
import { erasureSealing, PrivacyAdmin } from '../services/shared/src/privacy/privacy-admin.js'
import { privacyConfig, privacySpec } from '../services/shared/src/privacy/crypto/privacy-config.js'

export async function openAdmin(env: Record<string, string | undefined> = process.env): Promise<{
  admin: AccountsAdmin
  cfg: CommonConfig
  log: Logger
  kafka: Kafka
  codec: Codec
  producer: Producer
  close: () => Promise<void>
}> {
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
    log,
    kafka,
    codec,
    producer,
    close: async () => {
      await admin.stop()
      await producer.disconnect()
    },
  }
}

/** The privacy CLI's clients: erasure requests and receipts (A12), and the accounts (IP handling, H56). */
export async function openPrivacy(
  env: Record<string, string | undefined> = process.env,
): Promise<{ privacy: PrivacyAdmin; admin: AccountsAdmin; close: () => Promise<void> }> {
  const { admin, cfg, log, kafka, codec, producer, close: closeAdmin } = await openAdmin(env)
  const sealing = erasureSealing({ ...cfg, privacy: privacyConfig(readEnv(privacySpec, env)) })
  const privacy = new PrivacyAdmin(kafka, producer, codec, cfg.topics.erasures!, log, sealing)
  await privacy.start()
  return {
    privacy,
    admin,
    close: async () => {
      await privacy.stop()
      await closeAdmin()
    },
  }
}

/** Runs a CLI's main and exits with its code; an AdminError (the operator's input) exits 2, anything else 1. */
export function runCli(main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`error: ${err?.message ?? err}`)
      process.exit(err instanceof AdminError ? 2 : 1)
    },
  )
}
