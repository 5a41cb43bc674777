// kafkajs's DefaultPartitioner (Java-compatible murmur2 of the key) with a bounded cache of the
// partition per key (A4). Every ingest record is keyed by account and user, and the same users
// send again and again; the default recomputes murmur2 over a fresh Buffer and filters the
// partition list for every message, a few per cent of ingest CPU under load. Results are exactly
// the default's: a hit is only used while the topic's partition count is unchanged.
import { defaultPartitioner, type ICustomPartitioner, type PartitionerArgs } from '../../../shared/src/kafka/client.js'

export const PARTITION_CACHE_MAX_KEYS = 20_000

export const CachedDefaultPartitioner: ICustomPartitioner = () => {
  const inner = defaultPartitioner()
  // key -> numPartitions * 2^20 + partition (one number per entry; partitions < 2^20).
  const cache = new Map<string, number>()
  return (args: PartitionerArgs) => {
    const key = args.message.key
    if (typeof key !== 'string' || (args.message.partition !== undefined && args.message.partition !== null))
      return inner(args)
    const n = args.partitionMetadata.length
    const hit = cache.get(key)
    if (hit !== undefined && Math.floor(hit / 1_048_576) === n) return hit % 1_048_576
    const partition = inner(args)
    // Bounded: start over rather than track recency; a miss only costs the default's work.
    if (cache.size >= PARTITION_CACHE_MAX_KEYS) cache.clear()
    cache.set(key, n * 1_048_576 + partition)
    return partition
  }
}
