// Prometheus text metrics for the projector (issue 4): lag per partition, rows inserted,
// insert latency, DLQ count. Kept as plain counters; rendered on GET /metrics.
export class Metrics {
  private readonly lag = new Map<string, { committed: bigint; high: bigint }>()
  private rowsEvents = 0
  private rowsIdentifies = 0
  private inserts = 0
  private insertSecondsSum = 0
  private insertSecondsMax = 0
  private dlqCount = 0
  private readonly duplicates = { event: 0, identify: 0 }
  private joins = 0
  private readonly buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
  private readonly bucketCounts = new Array(this.buckets.length).fill(0)

  committedOffset(topic: string, partition: number, lastOffset: string, highWatermark: string) {
    this.lag.set(`${topic}\u0000${partition}`, { committed: BigInt(lastOffset) + 1n, high: BigInt(highWatermark) })
  }

  inserted(events: number, identifies: number, seconds: number) {
    this.rowsEvents += events
    this.rowsIdentifies += identifies
    this.inserts++
    this.insertSecondsSum += seconds
    this.insertSecondsMax = Math.max(this.insertSecondsMax, seconds)
    this.buckets.forEach((b, i) => {
      if (seconds <= b) this.bucketCounts[i]++
    })
  }

  /** Each join of the consumer group: more than one per process means rebalances. */
  groupJoined() {
    this.joins++
  }

  get groupJoins() {
    return this.joins
  }

  dlq(n: number) {
    this.dlqCount += n
  }

  /** Records the writer dropped because their event_id was stored already (H16 retries, replays). */
  duplicatesDropped(kind: 'event' | 'identify', n: number) {
    this.duplicates[kind] += n
  }

  totalLag(): number {
    let sum = 0n
    for (const { committed, high } of this.lag.values()) sum += high > committed ? high - committed : 0n
    return Number(sum)
  }

  render(): string {
    const out: string[] = []
    out.push('# HELP projector_consumer_lag Records on the partition not yet projected (high watermark minus resolved offset).')
    out.push('# TYPE projector_consumer_lag gauge')
    for (const [k, { committed, high }] of this.lag) {
      const [topic, partition] = k.split('\u0000')
      out.push(`projector_consumer_lag{topic="${topic}",partition="${partition}"} ${high > committed ? high - committed : 0n}`)
    }
    out.push('# HELP projector_rows_inserted_total Rows inserted into ClickHouse, by record kind.')
    out.push('# TYPE projector_rows_inserted_total counter')
    out.push(`projector_rows_inserted_total{kind="event"} ${this.rowsEvents}`)
    out.push(`projector_rows_inserted_total{kind="identify"} ${this.rowsIdentifies}`)
    out.push('# HELP projector_insert_seconds Time to write one batch to ClickHouse, retries included.')
    out.push('# TYPE projector_insert_seconds histogram')
    let cum = 0
    this.buckets.forEach((b, i) => {
      cum = this.bucketCounts[i]
      out.push(`projector_insert_seconds_bucket{le="${b}"} ${cum}`)
    })
    out.push(`projector_insert_seconds_bucket{le="+Inf"} ${this.inserts}`)
    out.push(`projector_insert_seconds_sum ${this.insertSecondsSum.toFixed(6)}`)
    out.push(`projector_insert_seconds_count ${this.inserts}`)
    out.push('# HELP projector_dlq_records_total Records sent to the dead-letter topic.')
    out.push('# TYPE projector_dlq_records_total counter')
    out.push(`projector_dlq_records_total ${this.dlqCount}`)
    out.push('# HELP projector_duplicate_records_dropped_total Records not inserted because their event_id was already stored or earlier in the batch (a message_id retry, a redelivery after a partial write, a replay).')
    out.push('# TYPE projector_duplicate_records_dropped_total counter')
    out.push(`projector_duplicate_records_dropped_total{kind="event"} ${this.duplicates.event}`)
    out.push(`projector_duplicate_records_dropped_total{kind="identify"} ${this.duplicates.identify}`)
    out.push('# HELP projector_group_joins_total Times the consumer joined its group (the first join, then one per rebalance).')
    out.push('# TYPE projector_group_joins_total counter')
    out.push(`projector_group_joins_total ${this.joins}`)
    return out.join('\n') + '\n'
  }
}
