// Step 6's way past records that can never be written (docs/design.md, "Projector: one record, file by
// file"): once a write failed for good, the records at fault are found, dead-lettered through step 4's
// DeadLetters (dead-letters.ts), and the rest of the batch is written. Records that cannot be mapped
// to rows are named by the writer's INVALID_RECORD error; a batch the server refuses for its data is
// split one record at a time.
import type { DeadLetterRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import type { PreparedBatch, PreparedRecord } from '../clickhouse/prepared.js'
import { ClickHouseWriteError, type InvalidRecord } from '../clickhouse/writer.js'
import { isRetriable } from './retry.js'
import { deadLetter, type DeadLetters } from './dead-letters.js'

export interface WriteOutcome {
  /** The records that are in ClickHouse now. */
  written: PreparedBatch
  /** How many records of the batch went to the DLQ instead. */
  deadLettered: number
}

/** The write step, as the isolation writes the rest of a batch (`write`) and single records (`writeRetrying`). */
export interface Rewriter {
  write(batch: PreparedBatch): Promise<WriteOutcome>
  writeRetrying(batch: PreparedBatch): Promise<unknown>
}

export async function isolateBadRecords(
  batch: PreparedBatch,
  cause: unknown,
  writer: Rewriter,
  deadLetters: DeadLetters,
  log: Logger,
): Promise<WriteOutcome> {
  if (cause instanceof ClickHouseWriteError && cause.code === 'INVALID_RECORD' && cause.invalid.length > 0) {
    // Rows built after the lookup: the writer named the records it cannot map and inserted
    // nothing. Dead-letter those, write the rest.
    const bad = new Map<string, InvalidRecord>(cause.invalid.map((r) => [`${r.kind}\u0000${r.event_id}`, r]))
    const rest: PreparedBatch = { events: [], identifies: [] }
    const dead: DeadLetterRecord[] = []
    for (const e of batch.events) {
      const r = bad.get(`event\u0000${e.event_id}`)
      if (r) dead.push({ ...deadLetterFor(deadLetters, 'Event', e, cause), reason: `${e.event_id}: ${r.reason}` })
      else rest.events.push(e)
    }
    for (const i of batch.identifies) {
      const r = bad.get(`identify\u0000${i.event_id}`)
      if (r) dead.push({ ...deadLetterFor(deadLetters, 'Identify', i, cause), reason: `${i.event_id}: ${r.reason}` })
      else rest.identifies.push(i)
    }
    if (dead.length > 0) {
      log.error('records cannot be mapped to rows; dead-lettering them', { count: dead.length })
      await deadLetters.send(dead)
      if (rest.events.length || rest.identifies.length) {
        const more = await writer.write(rest)
        return { written: more.written, deadLettered: dead.length + more.deadLettered }
      }
      return { written: rest, deadLettered: dead.length }
    }
  }
  // The server refused the batch for its data: find the records at fault one at a time.
  log.error('clickhouse refused a batch; isolating the records at fault', { err: cause })
  const written: PreparedBatch = { events: [], identifies: [] }
  const dead: DeadLetterRecord[] = []
  for (const e of batch.events) {
    try {
      await writer.writeRetrying({ events: [e], identifies: [] })
      written.events.push(e)
    } catch (err) {
      if (isRetriable(err)) throw err
      dead.push(deadLetterFor(deadLetters, 'Event', e, err))
    }
  }
  for (const i of batch.identifies) {
    try {
      await writer.writeRetrying({ events: [], identifies: [i] })
      written.identifies.push(i)
    } catch (err) {
      if (isRetriable(err)) throw err
      dead.push(deadLetterFor(deadLetters, 'Identify', i, err))
    }
  }
  await deadLetters.send(dead)
  return { written, deadLettered: dead.length }
}

function deadLetterFor(
  deadLetters: DeadLetters,
  kind: 'Event' | 'Identify',
  p: PreparedRecord,
  err: unknown,
): DeadLetterRecord {
  // Records always come with their origin from decode(); one written without (a test's) is re-encoded.
  const origin = p.origin ?? {
    topic: kind === 'Event' ? 'events' : 'identifies',
    partition: -1,
    offset: p.event_id,
    key: null,
    value: p.record ? deadLetters.codec.encode(kind, p.record) : null,
  }
  return deadLetter(origin, err)
}
