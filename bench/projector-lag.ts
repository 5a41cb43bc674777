// Live projection under flat-out batched ingest (bench/HISTORY.md: "lag stays flat while ingest runs flat
// out with batches"). Samples the projector group's lag every second while a load runs, then keeps
// sampling until the lag is 0 again, so the bench shows whether the projector keeps up and how long
// it takes to drain what was left when the load stopped.
//
// The lag is read from Kafka, as an operator's `kafka-consumer-groups --describe` reads it: end
// offsets minus the group's committed offsets, summed over partitions. (The projector's own
// projector_consumer_lag gauge compares each batch with the high watermark of its own fetch, so
// it reads 0 whenever a fetch reaches the end, however much arrived since.) The projector commits
// every second (autoCommitInterval), so about a second of records is the floor.
import type { Admin } from '../services/shared/src/kafka/client.js'

export interface LagFigures {
  /** One sample per `everyMs` during the load, records behind. */
  samples: number[]
  max: number
  /** Lag in the last sample of the load. */
  atEnd: number
  /** Mean of the first and the second half of the load's samples: flat means no growth between them. */
  firstHalfMean: number
  secondHalfMean: number
  /** Seconds from the end of the load until the lag read 0 (null: not within the timeout). */
  drainSec: number | null
}

/** The group's lag on `topic` summed over partitions, or null if Kafka did not answer. */
export async function groupLag(admin: Admin, groupId: string, topic: string): Promise<number | null> {
  try {
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ])
    const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]))
    let sum = 0
    for (const e of ends) {
      const c = at.get(e.partition) ?? -1
      sum += Math.max(0, Number(e.high) - (c < 0 ? Number(e.low) : c))
    }
    return sum
  } catch {
    return null
  }
}

const mean = (xs: number[]) => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0)

export async function lagDuring<T>(
  readLag: () => Promise<number | null>,
  run: () => Promise<T>,
  o: { everyMs?: number; drainTimeoutMs?: number } = {},
): Promise<{ result: T; lag: LagFigures }> {
  const everyMs = o.everyMs ?? 1000
  const samples: number[] = []
  let running = true
  const sampler = (async () => {
    while (running) {
      const lag = await readLag()
      if (lag !== null && running) samples.push(lag)
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  const result = await run().finally(() => {
    running = false
  })
  await sampler
  const ended = Date.now()
  let drainSec: number | null = null
  while (Date.now() - ended < (o.drainTimeoutMs ?? 60_000)) {
    if ((await readLag()) === 0) {
      drainSec = Math.round((Date.now() - ended) / 100) / 10
      break
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  const half = Math.floor(samples.length / 2)
  return {
    result,
    lag: {
      samples,
      max: samples.length ? Math.max(...samples) : 0,
      atEnd: samples.at(-1) ?? 0,
      firstHalfMean: mean(samples.slice(0, half)),
      secondHalfMean: mean(samples.slice(half)),
      drainSec,
    },
  }
}
