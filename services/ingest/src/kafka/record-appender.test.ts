// Group commit without a broker: a fake producer records each flush.
import t from 'tap'
import { RecordAppender, KafkaAppendError } from './record-appender.js'
import { createLogger } from '../../../shared/src/log.js'

const log = createLogger('error', {}, () => undefined)
const rec = (topic: string, n: number) => Array.from({ length: n }, (_, i) => ({ topic, key: `k${i}`, value: Buffer.from([i]) }))

function fakeProducer(opts: { fail?: boolean } = {}) {
  const flushes: Array<{ topic: string; messages: unknown[] }[]> = []
  const txns = { begun: 0, committed: 0, aborted: 0 }
  const send = async ({ topicMessages }: any) => {
    await new Promise((r) => setTimeout(r, 5))
    if (opts.fail) throw new Error('broker down')
    flushes.push(topicMessages)
  }
  return {
    flushes,
    txns,
    producer: {
      sendBatch: send,
      transaction: async () => {
        txns.begun++
        return { sendBatch: send, commit: async () => void txns.committed++, abort: async () => void txns.aborted++ }
      },
    } as any,
  }
}

t.test('concurrent requests share one flush, each resolved after it', async (t) => {
  const f = fakeProducer()
  const a = new RecordAppender(f.producer, { lingerMs: 5, maxBatchRecords: 1000, transactional: true, maxInFlight: 1 }, log)
  await Promise.all([a.append(rec('events', 3)), a.append(rec('identifies', 2)), a.append(rec('events', 1))])
  t.equal(f.flushes.length, 1, 'one produce for three requests')
  t.same(f.flushes[0].map((x) => [x.topic, x.messages.length]), [['events', 4], ['identifies', 2]])
  t.same(f.txns, { begun: 1, committed: 1, aborted: 0 })
})

t.test('the size cap splits flushes between whole requests', async (t) => {
  const f = fakeProducer()
  const a = new RecordAppender(f.producer, { lingerMs: 50, maxBatchRecords: 5, transactional: false, maxInFlight: 1 }, log)
  await Promise.all([a.append(rec('e', 3)), a.append(rec('e', 3)), a.append(rec('e', 3))])
  t.same(f.flushes.map((fl) => fl[0].messages.length), [3, 3, 3], 'no request straddles two flushes')
})

t.test('a failed flush rejects every request in it and aborts the transaction', async (t) => {
  const f = fakeProducer({ fail: true })
  const a = new RecordAppender(f.producer, { lingerMs: 1, maxBatchRecords: 100, transactional: true, maxInFlight: 1 }, log)
  const results = await Promise.allSettled([a.append(rec('e', 1)), a.append(rec('e', 2))])
  t.same(results.map((r) => r.status), ['rejected', 'rejected'])
  t.type((results[0] as PromiseRejectedResult).reason, KafkaAppendError)
  t.equal(f.txns.aborted, 1)
  t.equal(f.txns.committed, 0)
})

t.test('close drains what is queued, then refuses new records', async (t) => {
  const f = fakeProducer()
  const a = new RecordAppender(f.producer, { lingerMs: 1000, maxBatchRecords: 100, transactional: false, maxInFlight: 1 }, log)
  const p = a.append(rec('e', 2))
  await a.close()
  await p
  t.equal(f.flushes.length, 1, 'the lingering records were flushed by close')
  await t.rejects(a.append(rec('e', 1)), { code: 'KAFKA_APPEND_FAILED', message: 'appender is closed' })
})

t.test('a pool runs flushes at once, one transaction per producer at a time', async (t) => {
  let open = 0
  let maxOpen = 0
  const busy = new Set<number>()
  const pool = [0, 1].map((id) => ({
    transaction: async () => {
      if (busy.has(id)) throw new Error(`producer ${id} already has a transaction`)
      busy.add(id)
      maxOpen = Math.max(maxOpen, ++open)
      return {
        sendBatch: async () => new Promise((r) => setTimeout(r, 10)),
        commit: async () => void (open--, busy.delete(id)),
        abort: async () => void (open--, busy.delete(id)),
      }
    },
  })) as any[]
  const a = new RecordAppender(pool, { lingerMs: 0, maxBatchRecords: 1, transactional: true, maxInFlight: 8 }, log)
  await Promise.all(Array.from({ length: 6 }, () => a.append(rec('e', 1))))
  t.equal(maxOpen, 2, 'as many transactions at once as producers, never more')
  t.equal(a.stats.flushes, 6)
})
