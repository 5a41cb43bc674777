import t from 'tap'
import { Metrics } from './metrics.js'

t.test('dropped duplicates are counted by kind (issue 9 item 3)', async (t) => {
  const m = new Metrics()
  t.match(m.render(), /^projector_duplicate_records_dropped_total\{kind="event"\} 0$/m)
  m.duplicatesDropped('event', 2)
  m.duplicatesDropped('identify', 1)
  m.duplicatesDropped('event', 1)
  const text = m.render()
  t.match(text, /^# TYPE projector_duplicate_records_dropped_total counter$/m)
  t.match(text, /^projector_duplicate_records_dropped_total\{kind="event"\} 3$/m)
  t.match(text, /^projector_duplicate_records_dropped_total\{kind="identify"\} 1$/m)
})
