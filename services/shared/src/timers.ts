// The timers a component schedules with, passed in so a test can fire them itself instead of
// sleeping for them (a test that waits for a real timer is slow, and on a loaded machine it is a
// guess). Production passes nothing and gets Node's own.
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
}
