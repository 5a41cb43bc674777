import t from 'tap'
import { isSinglePartition, LaneRouter, type Lane } from './lane-router.js'

const r = (topic: string, key: string) => ({ topic, key, value: Buffer.alloc(0) })

t.test('which requests are atomic without a transaction', async (t) => {
  t.ok(isSinglePartition([r('events', 'a')]), 'one record')
  t.ok(isSinglePartition([r('events', 'a'), r('events', 'a')]), 'one user, one topic')
  t.notOk(isSinglePartition([r('events', 'a'), r('events', 'b')]), 'two users may be two partitions')
  t.notOk(isSinglePartition([r('events', 'a'), r('identifies', 'a')]), 'two topics are two partitions')
})

t.test('requests are routed by that rule and both lanes drain on close', async (t) => {
  const seen: string[] = []
  const lane = (name: string): Lane => ({
    append: async () => void seen.push(name),
    close: async () => void seen.push(`${name} closed`),
  })
  const router = new LaneRouter(lane('plain'), lane('atomic'))
  await router.append([r('events', 'a')])
  await router.append([r('events', 'a'), r('identifies', 'a')])
  await router.close()
  t.same(seen, ['plain', 'atomic', 'plain closed', 'atomic closed'])
})
