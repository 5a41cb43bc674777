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

  /** Milliseconds until the first pending timer is due (0 when none is). */
  get nextDueIn(): number {
    let first = Number.POSITIVE_INFINITY
    for (const d of this.due.values()) first = Math.min(first, d.at)
    return first === Number.POSITIVE_INFINITY ? 0 : first - this.now
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

/**
 * Settles `p`, moving the clock past each wait the code under test schedules on `timers` (a backoff
 * between attempts) once nothing else is left to run: the test never sleeps on real time.
 */
export async function settle<T>(timers: ManualTimers, p: Promise<T>): Promise<T> {
  let done = false
  const mark = () => {
    done = true
  }
  p.then(mark, mark)
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve))
    if (!done && timers.pending > 0) timers.advance(timers.nextDueIn)
  }
  return p
}
