// The compacted erasures topic (A12): erasure requests and their receipts, one record per person,
// keyed like the person's event records (pseudonymous with sealing on, A22). Written by the privacy CLI, the dashboard and the
// projector (progress); followed from the start by the projector, replays and ingest, the same way
// as the accounts topic (accounts-log.ts).
import type { Kafka, Producer } from '../kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { ErasureRecord } from '../../../../schemas/records.js'
import { erasureRecordKey } from './erasure-identity.js'
import type { Logger } from '../log.js'
import type { Readiness } from '../wait-for.js'
import { followAccounts, type AccountsFollower } from '../accounts/accounts-log.js'

export class ErasureWriter {
  constructor(
    private readonly producer: Producer,
    private readonly codec: Codec,
    private readonly topic: string,
  ) {}

  async write(e: ErasureRecord): Promise<void> {
    await this.producer.send({
      topic: this.topic,
      acks: -1,
      messages: [{ key: erasureRecordKey(e), value: this.codec.encode('Erasure', e) }],
    })
  }
}

/** Follows the erasures topic from its start, calling `apply` for each request or receipt; `ready`
 * resolves once everything on the topic at start has been applied (see followAccounts). */
export function followErasures(
  kafka: Kafka,
  codec: Codec,
  topic: string,
  apply: (e: ErasureRecord) => void,
  log: Logger,
  opts: { groupPrefix?: string; readiness?: Readiness; signal?: AbortSignal } = {},
): Promise<AccountsFollower> {
  return followAccounts<{ kind: 'Erasure'; value: ErasureRecord }>(
    kafka,
    codec,
    topic,
    (entry) => apply(entry.value),
    log,
    {
      ...opts,
      groupPrefix: opts.groupPrefix ?? 'erasures-follower',
      kinds: ['Erasure'],
    },
  )
}
