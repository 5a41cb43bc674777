// The compacted accounts topic (A1, A3): accounts, plans and API keys as records. Writers append;
// every service that needs the table follows the whole topic from the beginning into memory.
import type { Kafka, Producer, Consumer } from '../kafka/client.js'
import { randomUUID } from 'node:crypto'
import { RegistryUnavailableError, SchemaMissingError, type Codec } from '../../../../schemas/codec.js'
import { accountsKey, type AccountRecord, type ApiKeyRecord, type PlanRecord } from '../../../../schemas/records.js'
import type { Logger } from '../log.js'
import { waitFor, type Readiness } from '../wait-for.js'

export type AccountsEntry =
  | { kind: 'Account'; value: AccountRecord }
  | { kind: 'Plan'; value: PlanRecord }
  | { kind: 'ApiKey'; value: ApiKeyRecord }

const ACCOUNTS_KINDS: ReadonlyArray<AccountsEntry['kind']> = ['Account', 'Plan', 'ApiKey']

export class AccountsWriter {
  constructor(
    private readonly producer: Producer,
    private readonly codec: Codec,
    private readonly topic: string,
  ) {}

  async write(entries: AccountsEntry[]): Promise<void> {
    const messages = entries.map((e) => ({
      key:
        e.kind === 'Account'
          ? accountsKey.account(e.value.account_id)
          : e.kind === 'Plan'
            ? accountsKey.plan(e.value.name)
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
 * reaches every follower within the fetch wait (maxWaitTimeInMs below). Kafka is waited for at
 * start; a record the registry cannot be asked about now, or whose schema id the registry lost
 * (H41), is waited for, never skipped (a missed key revocation would stay missed until restart):
 * the follower stalls, and is not ready, meanwhile. Only a record that can never be decoded (not
 * in the wire format, a body its schema does not read) is skipped. */
export async function followAccounts<E extends { kind: string; value: unknown } = AccountsEntry>(
  kafka: Kafka,
  codec: Codec,
  topic: string,
  apply: (entry: E) => void,
  log: Logger,
  opts: {
    groupPrefix?: string
    /** The record kinds applied; others are passed over. The accounts kinds by default; the
     * erasures topic (A12) is followed the same way with its own. */
    kinds?: ReadonlyArray<E['kind']>
    /** Marked while Kafka or the registry is waited for. */
    readiness?: Readiness
    /** Ends the waits at start (the caller is stopping before the follower exists). */
    signal?: AbortSignal
    retryMs?: { initialMs: number; maxMs: number }
  } = {},
): Promise<AccountsFollower> {
  const kinds: ReadonlyArray<string> = opts.kinds ?? ACCOUNTS_KINDS
  const abort = new AbortController()
  opts.signal?.addEventListener('abort', () => abort.abort(), { once: true })
  const waitOpts = { ...opts.retryMs, signal: abort.signal, readiness: opts.readiness }
  const ends = await waitFor(
    'kafka',
    async () => {
      const admin = kafka.admin()
      await admin.connect()
      try {
        return await admin.fetchTopicOffsets(topic)
      } finally {
        await admin.disconnect()
      }
    },
    log,
    waitOpts,
  )
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
  await waitFor('kafka', () => consumer.connect(), log, waitOpts)
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message, heartbeat }) => {
      if (message.value) {
        // kafkajs heartbeats between messages only: keep the member alive while the registry is away.
        const beat = setInterval(() => heartbeat().catch(() => undefined), 1_000)
        try {
          const d = await waitFor('registry', () => codec.decode(message.value!), log, {
            ...waitOpts,
            retryIf: (err) => {
              // H41: the registry lost a schema the topic uses; waited out like an outage, but loudly.
              if (err instanceof SchemaMissingError)
                log.error('the schema registry lost a schema the accounts topic uses; waiting until it is restored', {
                  partition,
                  offset: message.offset,
                  schemaId: err.missingId,
                })
              return err instanceof RegistryUnavailableError
            },
          })
          if (kinds.includes(d.name)) apply({ kind: d.name, value: d.value } as E)
        } catch (err) {
          // Stopping while the registry is away: the record was not applied, and nothing after it will be.
          if (abort.signal.aborted) throw err
          log.error('accounts record can never be decoded; skipped', { partition, offset: message.offset, err })
        } finally {
          clearInterval(beat)
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
      abort.abort()
      await consumer.disconnect()
    },
  }
}
