// The time every limit window is computed from (H3, H4, H5). The wall clock can step back (NTP, a VM
// resumed, an operator): windows computed from it would then go back too, and the memory store
// would be asked about windows older than the ones it holds. This clock never goes back: it follows
// the wall clock while that moves forward, and while the wall clock is behind what was already
// returned it carries on from there at the rate of the process's monotonic timer, until the wall
// clock catches up. Integer milliseconds, as Date.now gives (record ids need whole ms).

export type Clock = () => number

export function monotonicClock(wall: Clock = Date.now, elapsed: Clock = () => performance.now()): Clock {
  let base = -Infinity
  let baseElapsed = 0
  return () => {
    const e = elapsed()
    const w = wall()
    const carried = Math.floor(base + (e - baseElapsed))
    if (w >= carried) {
      base = w
      baseElapsed = e
      return w
    }
    return carried
  }
}
