// A16: the decode step opens sealed records with the holder's keys, waits for the keys topic on a miss,
// and leaves only a usage stub for a record whose key is gone; a record without `enc` reads unchanged.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { Codec } from '../../../../schemas/codec.js'
import type { EventRecord } from '../../../../schemas/records.js'
import { createLogger } from '../../../shared/src/log.js'
import { encryptPersonalFields } from '../../../shared/src/privacy/crypto/index.js'
import { ProjectionPipeline } from '../consume/projection.js'
import { RecordOpener } from './record-opener.js'
import type { UsageStub } from './usage-stubs.js'
import { makeEvent } from '../../../../test/support/clickhouse-helpers.js'

const event = (i: number, user: string): EventRecord =>
  makeEvent({
    event_id: `e${i}`,
    user_id: user,
    user_email: `${user}@example.com`,
    properties: JSON.stringify({ note: `${user}-prop` }),
    ip: '203.0.113.9',
  })

async function setup(keys: Map<string, Buffer>, caughtUp: () => Promise<void>) {
  let id = 1
  const codec = new Codec({ register: async () => ({ id: id++ }), getSchema: async () => ({}) } as any)
  await codec.register({ events: 'ev', identifies: 'id', accounts: 'ac', dlq: 'dlq' })
  const stubs: UsageStub[] = []
  const opener = new RecordOpener({ keyFor: (k) => keys.get(k), caughtUp })
  const pipeline = new ProjectionPipeline(
    {} as any,
    codec,
    {} as any,
    {
      dlqTopic: 'dlq',
      // Rows built after the lookup: each record is kept as decoded, so the test reads its fields.
      rows: 'after-lookup',
      retries: 1,
      sealed: { opener, keepUsage: async (s) => void stubs.push(...s) },
    },
    undefined,
    createLogger('error', {}, () => undefined),
  )
  return { codec, pipeline, stubs }
}

const sealedWith = (keyId: string, bytes: Buffer, e: EventRecord) =>
  encryptPersonalFields('event', e as any, { id: keyId, bytes }, 'pseudo') as unknown as EventRecord

t.test('sealed records are projected in clear, a gone key leaves a stub, clear records are unchanged', async (t) => {
  const keys = new Map<string, Buffer>()
  const kAda = randomBytes(32)
  const kLate = randomBytes(32)
  let syncs = 0
  // The late key reaches the holder only when it reads on to the topic's end.
  const { codec, pipeline, stubs } = await setup(keys, async () => {
    syncs++
    keys.set('late', kLate)
  })
  keys.set('ada', kAda)
  const records = [
    sealedWith('ada', kAda, event(1, 'ada')),
    event(2, 'clear'),
    sealedWith('late', kLate, event(3, 'late')),
    sealedWith('erased', randomBytes(32), event(4, 'erased')),
    sealedWith('erased', randomBytes(32), event(5, 'erased')),
  ]
  const messages = records.map((r, i) => ({
    offset: String(i),
    key: Buffer.from('k'),
    value: codec.encode('Event', r),
  }))
  const { part, dead } = await pipeline.decode('ev', 0, messages as any)
  t.same(dead, [], 'nothing dead-lettered')
  t.same(
    part.events.map((e) => [e.event_id, e.record?.user_id, e.record?.user_email]),
    [
      ['e1', 'ada', 'ada@example.com'],
      ['e2', 'clear', 'clear@example.com'],
      ['e3', 'late', 'late@example.com'],
    ],
    'user ids in clear, the erased person absent',
  )
  t.same(
    stubs.map((s) => s.event_id),
    ['e4', 'e5'],
    "the erased person's events still count",
  )
  t.equal(syncs, 1, 'one read to the keys topic end for the batch, however many misses')
})

t.test('a body that does not open with its key is a dead letter, not a stub', async (t) => {
  const keys = new Map([['ada', randomBytes(32)]])
  const { codec, pipeline, stubs } = await setup(keys, async () => undefined)
  const value = codec.encode('Event', sealedWith('ada', randomBytes(32), event(1, 'ada')))
  const { part, dead } = await pipeline.decode('ev', 0, [{ offset: '0', key: null, value }] as any)
  t.equal(part.events.length, 0)
  t.equal(dead.length, 1)
  t.equal(stubs.length, 0)
})
