// Timers (services/shared/src/timers.ts) that fire only when a test moves their clock: `advance(ms)`
// runs, in time order, every timer due by then.
import type { Timers } from '../../services/shared/src/timers.js'

export class ManualTimers implements Timers {
  now = 0
  private next = 1
  private readonly due = new Map<number, { at: number; fn: () => void }>()

  setTimeout(fn: () => void, ms: number): number {
    const id = this.next++
    this.due.set(id, { at: this.now + ms, fn })
    return id
  }

  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number)
  }

  /** Timers scheduled and not yet fired or cleared. */
  get pending(): number {
    return this.due.size
  }

  advance(ms: number): void {
    const until = this.now + ms
    for (;;) {
      const [id, first] = [...this.due].sort((a, b) => a[1].at - b[1].at)[0] ?? []
      if (id === undefined || first!.at > until) break
      this.due.delete(id)
      this.now = first!.at
      first!.fn()
    }
    this.now = until
  }
}
