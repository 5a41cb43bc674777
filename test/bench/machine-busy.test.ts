// The sealed-replay bench's "cores busy" (bench/processes.ts busiestRate): the machine's busy time over the
// busiest stretch of a replay's length, so a CLI's quiet start does not dilute the replay's own window.
import t from 'tap'
import { busiestRate } from '../../bench/processes.js'

t.test('the busiest stretch of the given length, not the average over the whole run', async (t) => {
  // 4 s quiet (0.2 cores), then 6 s at 2 cores, then 1 s quiet: sampled every 500 ms.
  const samples: Array<{ at: number; busy: number }> = []
  let busy = 0
  for (let at = 0; at <= 11_000; at += 500) {
    samples.push({ at, busy })
    busy += at < 4_000 || at >= 10_000 ? 0.1 : 1
  }
  t.equal(busiestRate(samples, 6_000), 2, 'the 6 s at two cores')
  t.ok(busiestRate(samples, 11_000) < 1.3, 'the whole run, its quiet parts included')
  t.equal(busiestRate(samples, 60_000), busiestRate(samples, 11_000), 'a stretch longer than the run: the run')
  t.equal(busiestRate([{ at: 0, busy: 0 }], 1_000), 0, 'one sample: no rate')
})
