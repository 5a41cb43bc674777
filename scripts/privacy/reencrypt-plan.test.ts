// A19 without servers: the resume point, the tail the rerun reads, the progress line, what becomes of a
// record, and the sealing of a clear record as ingest would (keys minted once per person-month).
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { decryptRecord, isStreamKeyId, unwrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'
import { HistorySealer, type WrappedKey } from './history-sealer.js'
import * as plan from './reencrypt-plan.js'

t.test(
  'plan.planPartitions starts at the committed offset, else the first, and leaves out complete ones',
  async (t) => {
    const ends = [
      { partition: 2, low: 0n, high: 10n },
      { partition: 0, low: 5n, high: 100n },
      { partition: 1, low: 0n, high: 40n },
      { partition: 3, low: 0n, high: 0n },
    ]
    const committed = new Map([
      [0, 3n],
      [1, 40n],
      [2, 7n],
    ])
    t.same(plan.planPartitions(ends, committed), [
      { partition: 0, start: 5n, end: 100n },
      { partition: 2, start: 7n, end: 10n },
    ])
    t.same(plan.planPartitions(ends, new Map()).length, 3, 'a first run reads every non-empty partition from its start')
  },
)

t.test('a rerun skips the source records the destination tail names', async (t) => {
  t.equal(plan.tailStart(0n, 10n, 2000), 0n)
  t.equal(plan.tailStart(100n, 5000n, 2000), 3000n)
  const refs = plan.writtenRefs([
    { [plan.SOURCE_PARTITION_HEADER]: Buffer.from('1'), [plan.SOURCE_OFFSET_HEADER]: Buffer.from('42') },
    { [plan.SOURCE_PARTITION_HEADER]: '0', [plan.SOURCE_OFFSET_HEADER]: '7' },
    { other: Buffer.from('x') },
    undefined,
  ])
  t.same([...refs].sort(), [plan.sourceRef(0, '7'), plan.sourceRef(1, 42n)].sort())
})

t.test('plan.formatProgress gives done/total, the share, the rate and each partition', async (t) => {
  const p = plan.newProgress(
    [
      { partition: 0, start: 0n, end: 300n },
      { partition: 1, start: 100n, end: 200n },
    ],
    1_000,
  )
  p.partitions.get(0)!.done = 150n
  p.partitions.get(1)!.done = 50n
  t.equal(plan.formatProgress(p, 3_000), 'reencrypt 200/400 (50%) 100 records/s  p0 150/300 p1 50/100')
  t.equal(plan.formatProgress(plan.newProgress([], 0), 0), 'reencrypt 0/0 (100%) 0 records/s  ')
})

t.test('plan.actionFor: sealed records are copied, clear ones sealed, erased people stubbed', async (t) => {
  t.equal(plan.actionFor(true, false), 'copy')
  t.equal(plan.actionFor(true, true), 'copy', 'a sealed record of an erased person is unreadable already')
  t.equal(plan.actionFor(false, false), 'seal')
  t.equal(plan.actionFor(false, true), 'stub')
})

const MASTER = randomBytes(32)
const event = (user: string, receivedAt: number) => ({
  event_id: randomBytes(8).toString('hex'),
  account_id: 'acme',
  environment: 'live',
  key_id: 'k1',
  event: 'opened',
  timestamp: receivedAt,
  received_at: receivedAt,
  user_id: user,
  user_email: `${user}@example.com`,
  user_traits: '{}',
  properties: JSON.stringify({ secret: `${user}-prop` }),
  context: '{}',
  ip: '203.0.113.9',
  user_agent: null,
  message_id: null,
  anonymous_id: null,
})

t.test('HistorySealer seals as ingest would: one key per person-month, stored and opening the record', async (t) => {
  const sealer = new HistorySealer(MASTER)
  const minted: WrappedKey[] = []
  const jan = Date.UTC(2026, 0, 10)
  const a1 = sealer.seal('event', event('ann', jan), minted)
  const a2 = sealer.seal('event', event('ann', jan + 1000), minted)
  sealer.seal('event', event('ann', Date.UTC(2026, 1, 2)), minted)
  sealer.seal('event', event('bob', jan), minted)
  t.equal(minted.length, 3, 'ann in January, ann in February, bob in January')
  t.equal(a1.key, a2.key, 'one person, one record key')
  t.notOk(JSON.stringify(a1).includes('ann'), 'neither the key nor the record names the person')
  const keys = new Map(minted.map((k) => [k.id, unwrapDataKey(MASTER, k.id, k.wrapped)]))
  const opened = decryptRecord('event', a1.record as any, (id) => keys.get(id)) as any
  t.equal(opened.user_id, 'ann')
  t.equal(opened.user_email, 'ann@example.com')
})

t.test('HistorySealer.stub: a record no stored key opens, under a pseudonym of nobody', async (t) => {
  const sealer = new HistorySealer(MASTER)
  const minted: WrappedKey[] = []
  const sealed = sealer.seal('event', event('mallory9', 1), minted)
  const s1 = sealer.stub('event', event('mallory9', 1))
  const s2 = sealer.stub('event', event('mallory9', 2))
  t.not(s1.key, sealed.key, 'not the person pseudonym')
  t.not(s1.key, s2.key)
  t.notOk(JSON.stringify(s1).includes('mallory9'))
  const keys = new Map(minted.map((k) => [k.id, unwrapDataKey(MASTER, k.id, k.wrapped)]))
  t.equal(
    decryptRecord('event', s1.record as any, (id) => keys.get(id)),
    undefined,
    'reads as a record whose key is gone',
  )
  t.equal((s1.record as any).event_id !== undefined && (s1.record as any).account_id, 'acme', 'usage fields clear')
})

t.test('HistorySealer mints key ids as ingest does: stream format (A18), one rule (A20)', async (t) => {
  const sealer = new HistorySealer(MASTER)
  const minted: WrappedKey[] = []
  const jan = Date.UTC(2026, 0, 10)
  const records = [sealer.seal('event', event('ann', jan), minted), sealer.seal('event', event('ann', jan + 1), minted)]
  const stub = sealer.stub('event', event('ann', jan))
  for (const id of [...minted.map((k) => k.id), (stub.record as any).enc.key_id])
    t.match(id.split('\u0000'), ['acme', /^[0-9a-f]{32}$/, '2026-01', /^s[0-9a-f]{8}$/])
  const keys = new Map(minted.map((k) => [k.id, unwrapDataKey(MASTER, k.id, k.wrapped)]))
  for (const r of records) {
    t.ok(isStreamKeyId((r.record as any).enc.key_id))
    t.equal((decryptRecord('event', r.record as any, (id) => keys.get(id)) as any).user_email, 'ann@example.com')
  }
})
