// The consume loop (projector.ts) against a fake consumer (test/support/fake-consumer.ts) and a fake
// writer: what it commits and when (A1, A5: an offset only after the insert holding its records),
// poison records to the DLQ with the rest written, a failed write restarting the consumer from the
// committed offsets in a new epoch, a rejoin that is not a failure, the consumer's crash and fetch events
// as the projector's readiness, and stop() draining what is buffered. The stack tier
// (test/projector/resilience.integration.test.ts) runs the same against Kafka and ClickHouse.
import t from 'tap'
import type { Kafka, Producer } from '../../../shared/src/kafka/client.js'
import { Codec } from '../../../../schemas/codec.js'
import type { DeadLetterRecord, EventRecord } from '../../../../schemas/records.js'
import { createLogger } from '../../../shared/src/log.js'
import { Readiness } from '../../../shared/src/wait-for.js'
import { CodedError } from '../../../shared/src/errors.js'
import { FakeKafka } from '../../../../test/support/fake-consumer.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import { Metrics } from './metrics.js'
import { Projector, type ProjectorOptions, type ProjectionSink } from './projector.js'

const topics = { events: 'ev', identifies: 'id', accounts: 'ac', dlq: 'dlq' }
const log = createLogger('error', {}, () => undefined)

const event = (i: number): EventRecord => ({
  event_id: `e${i}`,
  account_id: 'a',
  environment: 'live',
  key_id: 'k',
  event: 'x',
  user_id: 'u',
  user_email: null,
  user_traits: null,
  timestamp: 1_700_000_000_000 + i,
  original_timestamp: null,
  received_at: 1_700_000_000_000,
  sent_at: null,
  timestamp_flagged: false,
  properties: '{}',
  context: '{}',
  ip: null,
  user_agent: null,
  message_id: null,
})

async function setup(sink: ProjectionSink['writePrepared'], over: Partial<ProjectorOptions> = {}) {
  let id = 1
  const codec = new Codec({
    register: async () => ({ id: id++ }),
    getSchema: async () => {
      throw new Error('no such schema')
    },
  } as any)
  await codec.register(topics)
  const dlq: DeadLetterRecord[] = []
  const producer = {
    send: async ({ messages }: any) => {
      for (const m of messages) dlq.push((await codec.decode(m.value)).value)
    },
  }
  const kafka = new FakeKafka()
  const opts: ProjectorOptions = {
    groupId: 'g',
    topics,
    maxRows: 1000,
    maxWaitMs: 60_000,
    retries: 0,
    initialRetryMs: 1,
    maxRetryMs: 1,
    fromBeginning: true,
    drainMs: 10_000,
    ...over,
  }
  const projector = new Projector(
    kafka as unknown as Kafka,
    producer as unknown as Producer,
    codec,
    { writePrepared: sink },
    opts,
    new Metrics(),
    log,
  )
  await projector.start()
  kafka.current.join()
  return { codec, kafka, projector, dlq, events: (...ids: number[]) => ids.map((i) => codec.encode('Event', event(i))) }
}

const ids = (b: PreparedBatch) => b.events.map((e) => e.event_id)

/** Lets the projector's callbacks run until `cond` holds (no clock involved; gives up after many turns). */
async function until(cond: () => boolean, what: string) {
  for (let i = 0; i < 10_000 && !cond(); i++) await new Promise((r) => setImmediate(r))
  if (!cond()) throw new Error(`never happened: ${what}`)
}

t.test(
  'rows are written before their offset is committed; stop() writes what is buffered, commits it and leaves',
  async (t) => {
    const written: string[][] = []
    const s = await setup(async (b) => void written.push(ids(b)))
    await s.kafka.current.deliver('ev', 0, 10, s.events(10, 11, 12))
    t.same(s.kafka.current.resolved, ['12'], 'the fetch position moves on once the rows are queued')
    t.same(
      [written, s.kafka.current.commits],
      [[], []],
      'nothing is committed before its insert (maxWaitMs not reached)',
    )
    await s.projector.stop()
    t.same(written, [['e10', 'e11', 'e12']], 'the drain writes the buffered rows now')
    t.same(s.kafka.current.commits, [{ topic: 'ev', partition: 0, offset: '13' }], 'the next offset to read')
    t.ok(s.kafka.current.paused && s.kafka.current.disconnected, 'fetching stopped, the group left')
  },
)

t.test(
  'a poison record goes to the DLQ with its place in the log; the rest is written and the offset moves past it',
  async (t) => {
    const written: string[][] = []
    const s = await setup(async (b) => void written.push(ids(b)))
    const [a, b] = s.events(20, 22)
    await s.kafka.current.deliver('ev', 3, 20, [a!, Buffer.from('not avro'), b!])
    await s.projector.stop()
    t.match(s.dlq, [{ topic: 'ev', partition: 3, offset: '21', error_code: 'UNKNOWN_SCHEMA' }])
    t.same(written, [['e20', 'e22']])
    t.same(s.kafka.current.commits, [{ topic: 'ev', partition: 3, offset: '23' }])
  },
)

t.test(
  'a failed write commits nothing fetched so far; the consumer rejoins and reads again from the committed offsets',
  async (t) => {
    const written: string[][] = []
    let fail = true
    const s = await setup(
      async (b) => {
        if (fail) throw new CodedError('INSERT_FAILED', 'the insert failed', { retriable: true })
        written.push(ids(b))
      },
      { maxWaitMs: 1 },
    )
    const first = s.kafka.current
    await first.deliver('ev', 0, 0, s.events(0, 1))
    await until(() => s.kafka.consumers.length === 2, 'a second consumer')
    t.ok(first.disconnected, 'the failed member left the group')
    t.same(first.commits, [], 'nothing of the failed epoch is committed')
    const second = s.kafka.current
    t.same(second.subscribed, ['ev', 'id'])
    await first.deliver('ev', 0, 2, s.events(2)).catch(() => undefined)
    fail = false
    second.join()
    await second.deliver('ev', 0, 0, s.events(0, 1, 2))
    await s.projector.stop()
    t.same(written, [['e0', 'e1', 'e2']], 'written once the new epoch reads them again')
    t.same(second.commits, [{ topic: 'ev', partition: 0, offset: '3' }])
    t.same(first.commits, [], 'a batch the old member fetched after the failure was never committed')
  },
)

t.test("the consumer's health is the projector's readiness: a crash says why, the next fetch clears it", async (t) => {
  const readiness = new Readiness(['kafka'])
  const s = await setup(async () => undefined, { readiness })
  t.same(readiness.snapshot(), { kafka: 'starting' }, 'not ready before the first fetch')
  s.kafka.current.emit('consumer.fetch', {})
  t.ok(readiness.ready, 'a fetch: ready')
  s.kafka.current.emit('consumer.crash', { error: new Error('KafkaJSConnectionError: broker gone') })
  t.notOk(readiness.ready, 'a crash: not ready')
  t.same(readiness.snapshot(), { kafka: 'consumer crashed: KafkaJSConnectionError: broker gone' })
  s.kafka.current.emit('consumer.fetch', {})
  t.ok(readiness.ready, 'fetching again: ready')
  await s.projector.stop()
})

t.test(
  'a rejoin without a failure starts an epoch; rows fetched before it are still committed once written (A5)',
  async (t) => {
    const written: string[][] = []
    const s = await setup(async (b) => void written.push(ids(b)))
    await s.kafka.current.deliver('ev', 0, 0, s.events(0, 1))
    s.kafka.current.join()
    await s.kafka.current.deliver('ev', 1, 5, s.events(5))
    await s.projector.stop()
    t.same(written, [['e0', 'e1', 'e5']], 'one insert in fetch order')
    t.same(
      s.kafka.current.commits,
      [
        { topic: 'ev', partition: 0, offset: '2' },
        { topic: 'ev', partition: 1, offset: '6' },
      ],
      'both epochs committed: only a failed write withholds commits',
    )
    t.same(s.kafka.consumers.length, 1, 'a rebalance is not a restart')
  },
)

t.test(
  'stop() during a restart whose old consumer waits for the registry gives that wait up and leaves (nothing fetched is committed)',
  async (t) => {
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    let writes = 0
    const s = await setup(
      async () => {
        writes++
        await gate
        throw new CodedError('INSERT_FAILED', 'the insert failed', { retriable: true })
      },
      { maxWaitMs: 1 },
    )
    const first = s.kafka.current
    await first.deliver('ev', 0, 0, s.events(0))
    await until(() => writes === 1, 'the write started')
    // A record of a schema id the registry cannot be asked about (it is down): its batch waits (H41).
    const unknown = Buffer.from([0, 0, 0, 3, 231, 0])
    first.deliver('ev', 1, 0, [unknown]).catch(() => undefined)
    open()
    await until(() => first.disconnecting, 'the failed write restarting the consumer')
    let stopped = false
    void s.projector.stop().then(() => (stopped = true))
    await until(() => stopped, 'stop() to return')
    t.ok(first.disconnected, 'the old consumer left')
    t.same(first.commits, [], 'nothing fetched was committed')
  },
)
