// The hour marks' bookkeeping without a server: each account's hours are marked once a batch, an hour
// this process marked less than MARK_SETTLE_MS ago is not marked again, and accounts do not share hours.
import t from 'tap'
import { HourMarks } from './hour-marks.js'
import { MARK_SETTLE_MS } from '../../../shared/src/rollup/dirty-hours.js'

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 10, 3, 10)

function recorder() {
  const rows: Array<{ account_id: string; hour: number }> = []
  const ch = {
    insert: async (q: { values: Array<{ account_id: string; hour: number }> }) => {
      rows.push(...q.values.map(({ account_id, hour }) => ({ account_id, hour })))
      return {} as never
    },
  }
  return { rows, ch: ch as never }
}
const marked = (rows: Array<{ account_id: string; hour: number }>) =>
  rows.map((r) => `${r.account_id}@${(r.hour * 1000 - T0) / HOUR}`).sort()

t.test('each account-hour of a batch is marked once, accounts interleaved', async (t) => {
  const { rows, ch } = recorder()
  const clock = { now: T0 + 10 * HOUR }
  const marks = new HourMarks(ch, 'db', { now: () => clock.now })
  await marks.markDirty([
    { account_id: 'a', timestamp: T0 + 5 },
    { account_id: 'b', timestamp: T0 + 10 },
    { account_id: 'a', timestamp: T0 + HOUR + 1 },
    { account_id: 'a', timestamp: T0 + 20 },
    { account_id: 'b', timestamp: T0 + 2 * HOUR },
  ])
  t.same(marked(rows), ['a@0', 'a@1', 'b@0', 'b@2'])

  // Half the settle time later, twice: a@0 and b@1 written again each time.
  const halfLater = async () => {
    rows.length = 0
    clock.now += MARK_SETTLE_MS / 2
    await marks.markDirty([
      { account_id: 'a', timestamp: T0 + 7 },
      { account_id: 'b', timestamp: T0 + HOUR },
    ])
    return marked(rows)
  }
  t.same(await halfLater(), ['b@1'], 'an hour marked less than the settle time ago is not marked again')
  t.same(await halfLater(), ['a@0'], 'marked again once settled; b@1 was marked half the settle time ago')
})

t.test('an insert that fails leaves the hours unmarked for the retry', async (t) => {
  let fail = true
  const rows: string[] = []
  const ch = {
    insert: async (q: { values: Array<{ account_id: string }> }) => {
      if (fail) throw new Error('connection refused')
      rows.push(...q.values.map((v) => v.account_id))
      return {} as never
    },
  }
  const marks = new HourMarks(ch as never, 'db', { now: () => T0 })
  await t.rejects(marks.markDirty([{ account_id: 'a', timestamp: T0 }]))
  fail = false
  await marks.markDirty([{ account_id: 'a', timestamp: T0 }])
  t.same(rows, ['a'])
})
