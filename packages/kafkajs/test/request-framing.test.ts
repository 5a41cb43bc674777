// The request framing replacement (src/protocol/request.js, CHANGES.md) frames every request the
// connection sends, not only produce: real fetch, metadata, offset commit, heartbeat and
// find-coordinator requests, and a request of every api key with random bodies, framed byte for
// byte as upstream frames them.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { src, upstream, withClock } from './support.js'

type Request = { apiKey: number; apiVersion: number; encode: () => Promise<{ buffer: Buffer }> }
type Frame = (a: { correlationId: number; clientId: string | null; request: Request }) => Promise<{ buffer: Buffer }>

const ours = src<Frame>('protocol/request.js')
const theirs = upstream<Frame>('protocol/request.js')
const Long = src('utils/long.js')
const Encoder = src('protocol/encoder.js')
const request = (type: string, version: number, args: object): Request => src(`protocol/requests/${type}/v${version}/request.js`)(args)

async function sameFrames(t: Test, name: string, make: () => Request) {
  for (const clientId of ['projector', null, 'clïent é']) {
    for (const correlationId of [0, 77, 2 ** 31 - 1]) {
      const a = await withClock(1, async () => (await ours({ correlationId, clientId, request: make() })).buffer)
      const b = await withClock(1, async () => (await theirs({ correlationId, clientId, request: make() })).buffer)
      if (!a.equals(b)) return t.fail(`${name}, client id ${clientId}, correlation id ${correlationId}: differs`)
    }
  }
  t.pass(`${name}: the same bytes`)
}

t.test('real requests of the types the services send are framed as upstream frames them', async (t) => {
  const topics = [
    { topic: 'events', partitions: [{ partition: 0, fetchOffset: '12345678901', maxBytes: 1048576 }, { partition: 5, fetchOffset: '0', maxBytes: 10 }] },
    { topic: 'identifies é', partitions: [{ partition: 3, fetchOffset: '9', logStartOffset: '2', maxBytes: 52428800 }] },
  ]
  await sameFrames(t, 'fetch v11', () => request('fetch', 11, { replicaId: -1, maxWaitTime: 500, minBytes: 1, maxBytes: 10485760, topics, rackId: 'r1', sessionId: 7, sessionEpoch: 3 }))
  await sameFrames(t, 'fetch v4', () => request('fetch', 4, { replicaId: -1, maxWaitTime: 500, minBytes: 1, maxBytes: 10485760, topics }))
  await sameFrames(t, 'metadata v6', () => request('metadata', 6, { topics: ['events', 'identifies', 'accounts'], allowAutoTopicCreation: false }))
  await sameFrames(t, 'metadata v6, every topic', () => request('metadata', 6, { topics: [] }))
  await sameFrames(t, 'offset commit v5', () => request('offsetCommit', 5, {
    groupId: 'projector', groupGenerationId: 4, memberId: 'projector-1-uuid',
    topics: [{ topic: 'events', partitions: [{ partition: 0, offset: '12345678901' }, { partition: 1, offset: '0' }] }],
  }))
  await sameFrames(t, 'heartbeat v3', () => request('heartbeat', 3, { groupId: 'projector', groupGenerationId: 4, memberId: 'm', groupInstanceId: null }))
  await sameFrames(t, 'find coordinator v2', () => request('findCoordinator', 2, { coordinatorKey: 'ingest-tx-0', coordinatorType: 1 }))
  const value = randomBytes(600)
  await sameFrames(t, 'produce v7', () => request('produce', 7, {
    acks: -1, timeout: 30000, producerId: Long.fromValue(4242), producerEpoch: 3,
    topicData: [{ topic: 'events', partitions: [{ partition: 2, firstSequence: 9, messages: [{ key: 'a:b', value }] }] }],
  }))
})

t.test('a request of every api key, with bodies of many sizes, is framed as upstream frames it', async (t) => {
  const apiKeys = src<Record<string, number>>('protocol/requests/apiKeys.js')
  t.ok(Object.keys(apiKeys).length > 40, 'every api key kafkajs knows')
  for (const [name, apiKey] of Object.entries(apiKeys)) {
    for (const size of [0, 1, 511, 512, 513, 70_000]) {
      const body = randomBytes(size)
      const make = (): Request => ({ apiKey, apiVersion: size % 12, encode: async () => new Encoder().writeBuffer(body) })
      const a = (await ours({ correlationId: size, clientId: 'ingest', request: make() })).buffer
      const b = (await theirs({ correlationId: size, clientId: 'ingest', request: make() })).buffer
      if (!a.equals(b)) t.fail(`${name} with a ${size}-byte body: differs`)
    }
  }
  t.pass('all framed the same')
})
