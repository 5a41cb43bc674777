// kafkajs 2.2.4 can resolve a send for records it never sent (found by the cluster drill, docs/scaling.md).
// sendMessages remembers which brokers answered and, when it retries after another broker failed,
// sends only to brokers without an answer. If a partition's leadership moved meanwhile to a broker
// that had already answered for other partitions (a broker killed, its partitions taken over by the
// survivors), that partition's records are skipped, and the send resolves with metadata for the
// other partitions only: acks=all for records that are on no broker, and a 200 for lost events.
//
// So every producer routes through a partitioner that records where each record went, and after a
// send the appender checks that the answer names every one of those partitions; one that is missing
// fails the flush like any other failure (503, producer retired; the records may or may not be
// stored, and a retry with the same message_id is deduplicated, H16). A producer carries one flush at
// a time (record-appender.ts), so the routes recorded between two checks are that flush's.
import type { ICustomPartitioner, Producer, RecordMetadata } from '../../../shared/src/kafka/client.js'

export class RoutedPartitions {
  // topic -> partitions routed since the last reset. Numbers in a Set per topic rather than a
  // "topic/partition" string per record: this runs for every record of every flush, and building and
  // hashing a fresh string each time was 2-3% of ingest's CPU under batches (bench/HISTORY.md).
  private readonly routes = new Map<string, Set<number>>()
  // The last topic's set, since a flush's records mostly come topic by topic.
  private last: { topic: string; set: Set<number> } | undefined

  /** A partitioner factory for kafka.producer() that records each record's topic and partition. */
  wrap(inner: ICustomPartitioner): ICustomPartitioner {
    return () => {
      const partition = inner()
      return (args) => {
        const p = partition(args)
        this.setOf(args.topic).add(p)
        return p
      }
    }
  }

  private setOf(topic: string): Set<number> {
    if (this.last !== undefined && this.last.topic === topic) return this.last.set
    let set = this.routes.get(topic)
    if (set === undefined) {
      set = new Set()
      this.routes.set(topic, set)
    }
    this.last = { topic, set }
    return set
  }

  /** Forgets the previous flush's routes. */
  reset(): void {
    this.routes.clear()
    this.last = undefined
  }

  /** Partitions routed since the last reset, across topics. */
  partitionCount(): number {
    let n = 0
    for (const partitions of this.routes.values()) n += partitions.size
    return n
  }

  /** The routed partitions that `answer` does not name, as "topic/partition". */
  missingFrom(answer: readonly RecordMetadata[] | undefined): string[] {
    const answered = new Set((answer ?? []).map((m) => `${m.topicName}\u0000${m.partition}`))
    const missing: string[] = []
    for (const [topic, partitions] of this.routes) {
      for (const p of partitions) if (!answered.has(`${topic}\u0000${p}`)) missing.push(`${topic}/${p}`)
    }
    return missing
  }
}

const registry = new WeakMap<Producer, RoutedPartitions>()

/** Attaches a producer's routes, so the appender that is handed the producer can check its sends. */
export function withRoutes(producer: Producer, routes: RoutedPartitions): Producer {
  registry.set(producer, routes)
  return producer
}

export function routesOf(producer: Producer): RoutedPartitions | undefined {
  return registry.get(producer)
}
