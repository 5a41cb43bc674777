// Step 4 of the projector's walk (docs/design.md, "Projector: one record, file by file"): records
// that can never be written go to the DLQ topic with the reason and their place in the log (A3, A5),
// and consumption goes on. The write step (projection-writer.ts) sends the records ClickHouse
// refuses here too.
import type { Producer } from '../../../shared/src/kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { DeadLetterRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import type { RecordOrigin } from '../clickhouse/prepared.js'
import type { Timers } from '../../../shared/src/timers.js'
import { withRetry } from './retry.js'

export interface DeadLetterMetrics {
  dlq(n: number): void
}

export class DeadLetters {
  constructor(
    private readonly producer: Producer,
    readonly codec: Codec,
    private readonly opts: { dlqTopic: string; retries: number; timers?: Timers },
    private readonly metrics: DeadLetterMetrics | undefined,
    private readonly log: Logger,
    /** Set when the owner is stopping: retries give up instead of waiting. */
    private readonly stopping: { aborted: boolean },
  ) {}

  async send(dead: DeadLetterRecord[]): Promise<void> {
    if (dead.length === 0) return
    this.metrics?.dlq(dead.length)
    for (const d of dead)
      this.log.warn('record sent to the DLQ', {
        topic: d.topic,
        partition: d.partition,
        offset: d.offset,
        code: d.error_code,
        reason: d.reason,
      })
    await withRetry(
      () =>
        this.producer.send({
          topic: this.opts.dlqTopic,
          acks: -1,
          messages: dead.map((d) => ({
            key: `${d.topic}/${d.partition}/${d.offset}`,
            value: this.codec.encode('DeadLetter', d),
          })),
        }),
      { retries: this.opts.retries, initialMs: 200, maxMs: 5000, signal: this.stopping, timers: this.opts.timers },
    )
  }
}

export function deadLetter(o: RecordOrigin, err: unknown): DeadLetterRecord {
  const e = err as { code?: string; message?: string }
  return {
    topic: o.topic,
    partition: o.partition,
    offset: o.offset,
    key: o.key,
    value: o.value,
    reason: String(e?.message ?? err),
    error_code: String(e?.code ?? 'UNKNOWN'),
    failed_at: Date.now(),
  }
}
