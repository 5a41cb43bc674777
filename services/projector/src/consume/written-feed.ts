// Step 7 of the projector's walk (docs/design.md, "Projector: one record, file by file"): after an
// insert, the records ClickHouse now holds go to whoever listens (the live feed, live/live-hub.ts).
// A listener's failure is logged and never fails the write: the rows are stored either way.
import type { Logger } from '../../../shared/src/log.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import type { RecordsByKind } from '../clickhouse/writer.js'

export type RecordListener = (batch: RecordsByKind) => void

export class WrittenFeed {
  private readonly listeners: RecordListener[] = []

  constructor(private readonly log: Logger) {}

  listen(listener: RecordListener): void {
    this.listeners.push(listener)
  }

  /** Hands the written records on; the pipeline keeps each record beside its rows for this (keepRecords). */
  publish(written: PreparedBatch): void {
    if (this.listeners.length === 0) return
    const records: RecordsByKind = {
      events: written.events.map((p) => p.record!),
      identifies: written.identifies.map((p) => p.record!),
    }
    for (const l of this.listeners) {
      try {
        l(records)
      } catch (err) {
        this.log.error('live listener failed', { err })
      }
    }
  }
}
