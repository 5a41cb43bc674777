// The pipeline's encoding step: the Kafka records of the built (and, with A15, sealed) records, each
// on its topic, Avro-encoded.
import { userKey, type EventRecord, type IdentifyRecord } from '../../../../schemas/records.js'
import type { OutRecord } from '../kafka/record-appender.js'
import type { SealInput } from '../privacy/record-sealer.js'
import type { Codec } from '../../../../schemas/codec.js'

/** The Kafka records of `records` (clear: keyed by account and user id, A3; sealed: by the pseudonym). */
export function outRecords(
  d: { topics: { events: string; identifies: string }; codec: Pick<Codec, 'encode'> },
  records: ReadonlyArray<{ key?: string; record: EventRecord | IdentifyRecord }>,
  built: readonly SealInput[],
): OutRecord[] {
  return records.map(({ key, record }, i) =>
    built[i]!.kind === 'event'
      ? {
          topic: d.topics.events,
          key: key ?? userKey(record.account_id, record.user_id),
          value: d.codec.encode('Event', record),
        }
      : {
          topic: d.topics.identifies,
          key: key ?? userKey(record.account_id, record.user_id),
          value: d.codec.encode('Identify', record),
        },
  )
}
