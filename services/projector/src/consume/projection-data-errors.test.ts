// A server refusal about the data ends in the DLQ for the records at fault, never in retries (H27):
// the projector would read the same batch again and again, and projection would stop for everyone.
import t from 'tap'
import { Codec } from '../../../../schemas/codec.js'
import type { DeadLetterRecord, EventRecord } from '../../../../schemas/records.js'
import { createLogger } from '../../../shared/src/log.js'
import { ClickHouseWriter, prepareBatch } from '../clickhouse/writer.js'
import { ProjectionPipeline } from './projection.js'
import { makeEvent } from '../../../../test/support/clickhouse-helpers.js'

const serverError = (code: number, type: string, message: string) =>
  Object.assign(new Error(message), { code: String(code), type })

async function pipelineOver(refuse: (eventIds: string[]) => Error | undefined) {
  let id = 1
  const codec = new Codec({
    register: async () => ({ id: id++ }),
    getSchema: async () => {
      throw new Error('unused')
    },
  } as any)
  await codec.register({ events: 'ev', identifies: 'id', accounts: 'ac', dlq: 'dlq' })
  const dead: DeadLetterRecord[] = []
  const stored: string[] = []
  const client = {
    command: async () => ({}), // the hourly counts' rebuild (U19)
    insert: async (q: { values: AsyncIterable<Buffer> }) => {
      let text = ''
      for await (const chunk of q.values) text += chunk.toString()
      const ids = text
        .split('\n')
        .slice(0, -1)
        .map((line) => line.split('\t')[0]!)
      const err = refuse(ids)
      if (err) throw err
      stored.push(...ids)
    },
  }
  const producer = {
    send: async ({ messages }: any) => {
      for (const m of messages) dead.push((await codec.decode(m.value)).value)
    },
  }
  const pipeline = new ProjectionPipeline(
    producer as any,
    codec,
    new ClickHouseWriter(client as any, 'db'),
    { dlqTopic: 'dlq', rows: 'at-decode', retries: 2, initialRetryMs: 1, maxRetryMs: 2 },
    undefined,
    createLogger('error', {}, () => undefined),
  )
  return { pipeline, dead, stored }
}

const batch = (...events: EventRecord[]) => prepareBatch({ events, identifies: [] }).prepared

t.test(
  'an insert refused for its partitions even for one month: the records go to the DLQ, the rest is written',
  async (t) => {
    const partitions = serverError(252, 'TOO_MANY_PARTS', 'Too many partitions for single INSERT block (more than 0).')
    const { pipeline, dead, stored } = await pipelineOver((ids) => (ids.includes('bad') ? partitions : undefined))
    const out = await pipeline.writer.write(
      batch(makeEvent({ event_id: 'ok1' }), makeEvent({ event_id: 'bad' }), makeEvent({ event_id: 'ok2' })),
    )
    t.same(
      out.written.events.map((e) => e.event_id),
      ['ok1', 'ok2'],
    )
    t.same(stored.sort(), ['ok1', 'ok2'])
    t.match(dead, [{ offset: 'bad', error_code: 'INSERT_REJECTED', reason: /Too many partitions/ }])
  },
)

t.test('current ClickHouse refusing a value (UNKNOWN_ELEMENT_OF_ENUM) is about the data too', async (t) => {
  const enumError = serverError(691, 'UNKNOWN_ELEMENT_OF_ENUM', "Unknown element 'bogus' for enum: (at row 1)")
  const { pipeline, dead, stored } = await pipelineOver((ids) => (ids.includes('bad') ? enumError : undefined))
  const out = await pipeline.writer.write(batch(makeEvent({ event_id: 'bad' }), makeEvent({ event_id: 'ok' })))
  t.same(
    out.written.events.map((e) => e.event_id),
    ['ok'],
  )
  t.same(stored, ['ok'])
  t.match(dead, [{ offset: 'bad', error_code: 'INSERT_REJECTED' }])
})

t.test(
  'the server falling behind on merges (252 too many parts) stays retriable: retried, then thrown, nothing dead-lettered',
  async (t) => {
    const overloaded = serverError(
      252,
      'TOO_MANY_PARTS',
      'Too many parts (3001 with average size of 1.00 KiB) in table. Merges are processing significantly slower than inserts',
    )
    const { pipeline, dead } = await pipelineOver(() => overloaded)
    await t.rejects(pipeline.writer.write(batch(makeEvent())), { code: 'RETRIES_EXHAUSTED' })
    t.same(dead, [])
  },
)
