// The compacted accounts topic (A1, A3): accounts, plans and API keys as records. Writers append;
// every service that needs the table follows the whole topic from the beginning into memory.
import type { Kafka, Producer, Consumer } from 'kafkajs'
import { randomUUID } from 'node:crypto'
import type { Codec } from '../../../schemas/codec.js'
import { accountsKey, type AccountRecord, type ApiKeyRecord, type PlanRecord } from '../../../schemas/records.js'
import type { Logger } from './log.js'

export type AccountsEntry =
  | { kind: 'Account'; value: AccountRecord }
  | { kind: 'Plan'; value: PlanRecord }
  | { kind: 'ApiKey'; value: ApiKeyRecord }

export class AccountsWriter {
  constructor(private readonly producer: Producer, private readonly codec: Codec, private readonly topic: string) {}

  async write(entries: AccountsEntry[]): Promise<void> {
    const messages = entries.map((e) => ({
      key:
        e.kind === 'Account' ? accountsKey.account(e.value.account_id)
        : e.kind === 'Plan' ? accountsKey.plan(e.value.name)
        : accountsKey.apiKey(e.value.key_id),
      value: this.codec.encode(e.kind, e.value),
    }))
    await this.producer.send({ topic: this.topic, acks: -1, messages })
  }
}

export interface AccountsFollower {
  /** Resolves once everything on the topic at start has been applied. */
  ready: Promise<void>
  /** Milliseconds since the follower last heard from Kafka (a fetch answered, even empty): a
   * follower that stopped hearing may be missing a key revocation, so the service is not ready. */
  silenceMs(): number
  stop(): Promise<void>
}

/** Follows the accounts topic from its start with a consumer group of its own (each instance
 * must see every record), calling `apply` for each. A change made by the CLI or the dashboard
 * reaches every follower within the fetch wait (maxWaitTimeInMs below). */
export async function followAccounts(
  kafka: Kafka,
  codec: Codec,
  topic: string,
  apply: (entry: AccountsEntry) => void,
  log: Logger,
  opts: { groupPrefix?: string } = {},
): Promise<AccountsFollower> {
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic)
  await admin.disconnect()
  const pending = new Map(ends.filter((p) => p.high !== p.low).map((p) => [p.partition, BigInt(p.high)]))

  let markReady!: () => void
  const ready = new Promise<void>((r) => (markReady = r))
  if (pending.size === 0) markReady()

  const consumer: Consumer = kafka.consumer({
    groupId: `${opts.groupPrefix ?? 'accounts-follower'}-${randomUUID()}`,
    maxWaitTimeInMs: 250,
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
  })
  let lastHeard = Date.now()
  consumer.on(consumer.events.FETCH, () => {
    lastHeard = Date.now()
  })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      if (message.value) {
        try {
          const d = await codec.decode(message.value)
          if (d.name === 'Account' || d.name === 'Plan' || d.name === 'ApiKey') apply({ kind: d.name, value: d.value } as AccountsEntry)
        } catch (err) {
          log.error('accounts record could not be decoded; skipped', { partition, offset: message.offset, err })
        }
      }
      const end = pending.get(partition)
      if (end !== undefined && BigInt(message.offset) + 1n >= end) {
        pending.delete(partition)
        if (pending.size === 0) markReady()
      }
    },
  })
  return {
    ready,
    silenceMs: () => Date.now() - lastHeard,
    stop: async () => {
      await consumer.disconnect()
    },
  }
}
