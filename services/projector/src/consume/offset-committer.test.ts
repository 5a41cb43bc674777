// The live projector's commits without Kafka: what is committed, in what order, and what never is
// after a failed write.
import t from 'tap'
import { OffsetCommitter, type PartitionOffset } from './offset-committer.js'
import { createLogger } from '../../../shared/src/log.js'

const log = createLogger('error', { svc: 'test' })
const tick = () => new Promise((r) => setImmediate(r))

/** A commit function whose requests end when the test says so. */
function commits() {
  const sent: Array<{ offsets: PartitionOffset[]; end: (err?: Error) => void }> = []
  const commit = (offsets: PartitionOffset[]) =>
    new Promise<void>((resolve, reject) => {
      sent.push({ offsets, end: (err) => (err ? reject(err) : resolve()) })
    })
  return { sent, commit }
}

t.test('one commit in flight; what arrives meanwhile is merged, a partition at its highest offset', async (t) => {
  const { sent, commit } = commits()
  const landed: string[] = []
  const c = new OffsetCommitter(commit, log, (topic, p, next, high) => landed.push(`${topic}/${p}@${next} of ${high}`))
  c.written('ev', 0, 10n, c.epoch, '50')
  await tick()
  t.same(
    sent.map((s) => s.offsets),
    [[{ topic: 'ev', partition: 0, offset: '10' }]],
  )
  c.written('ev', 0, 20n, c.epoch, '50')
  c.written('ev', 1, 5n, c.epoch, '9')
  c.written('ev', 0, 30n, c.epoch, '60')
  await tick()
  t.equal(sent.length, 1, 'nothing more while the first is in flight')
  sent[0]!.end()
  await tick()
  t.same(sent[1]!.offsets, [
    { topic: 'ev', partition: 0, offset: '30' },
    { topic: 'ev', partition: 1, offset: '5' },
  ])
  sent[1]!.end()
  await c.idle()
  t.same(landed, ['ev/0@10 of 50', 'ev/0@30 of 60', 'ev/1@5 of 9'], 'told of each commit that landed')
})

t.test('a failed commit is dropped and the next one goes', async (t) => {
  const { sent, commit } = commits()
  const landed: bigint[] = []
  const c = new OffsetCommitter(commit, log, (_t, _p, next) => landed.push(next))
  c.written('ev', 0, 10n, c.epoch, '10')
  await tick()
  sent[0]!.end(new Error('REBALANCE_IN_PROGRESS'))
  await c.idle()
  c.written('ev', 0, 20n, c.epoch, '20')
  await tick()
  sent[1]!.end()
  await c.idle()
  t.same(
    sent.map((s) => s.offsets[0]!.offset),
    ['10', '20'],
  )
  t.same(landed, [20n])
})

t.test(
  'after a failed write nothing fetched so far is committed, pending or later; a new epoch commits again',
  async (t) => {
    const { sent, commit } = commits()
    const c = new OffsetCommitter(commit, log)
    const before = c.epoch
    c.written('ev', 0, 10n, before, '100')
    await tick()
    c.written('ev', 1, 7n, before, '100') // pending behind the first
    c.poison()
    t.equal(c.poisoned, true)
    sent[0]!.end() // in flight before the failure: rows of writes that succeeded, safe to land
    await c.idle()
    c.written('ev', 0, 40n, before, '100') // a later write of the same epoch: past the failed rows
    await c.idle()
    t.same(
      sent.map((s) => s.offsets),
      [[{ topic: 'ev', partition: 0, offset: '10' }]],
      'neither the pending nor the later offset was committed',
    )
    c.newEpoch()
    t.equal(c.poisoned, false)
    c.written('ev', 0, 40n, before, '100')
    await c.idle()
    t.equal(sent.length, 1, 'a write fetched in the poisoned epoch still is not committed after it')
    c.written('ev', 0, 12n, c.epoch, '100')
    await tick()
    sent[1]!.end()
    await c.idle()
    t.same(
      sent[1]!.offsets,
      [{ topic: 'ev', partition: 0, offset: '12' }],
      'the new epoch, fetching from the committed offsets again, commits',
    )
  },
)
