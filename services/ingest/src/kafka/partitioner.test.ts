// The cached partitioner must pick exactly the partitions kafkajs's DefaultPartitioner picks.
import t from 'tap'
import { defaultPartitioner } from '../../../shared/src/kafka/client.js'
import { CachedDefaultPartitioner, PARTITION_CACHE_MAX_KEYS } from './partitioner.js'

const meta = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ partitionId: i, leader: 1, replicas: [1], isr: [1] })) as any

t.test('same partition as the default, across partition counts and cache resets', async (t) => {
  const def = defaultPartitioner()
  const cached = CachedDefaultPartitioner()
  let mismatches = 0
  for (const n of [6, 3, 6, 12]) {
    for (let i = 0; i < PARTITION_CACHE_MAX_KEYS + 500; i += 7) {
      const message = { key: `acct_${i % 97}:user_${i}`, value: 'x' }
      for (let r = 0; r < 2; r++) {
        if (
          cached({ topic: 'e', partitionMetadata: meta(n), message }) !==
          def({ topic: 'e', partitionMetadata: meta(n), message })
        )
          mismatches++
      }
    }
  }
  t.equal(mismatches, 0)
})

t.test('an explicit partition wins', async (t) => {
  t.equal(
    CachedDefaultPartitioner()({
      topic: 'e',
      partitionMetadata: meta(6),
      message: { key: 'k', value: 'x', partition: 4 },
    }),
    4,
  )
})
