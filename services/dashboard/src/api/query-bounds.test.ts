import t from 'tap'
import { clickHouseCode, readsTooMuch } from './query-bounds.js'

t.test('the read bounds are told apart from other ClickHouse errors', async (t) => {
  const rows = Object.assign(new Error("Limit for rows (controlled by 'max_rows_to_read' setting) exceeded"), {
    code: '158',
  })
  t.equal(clickHouseCode(rows), 158)
  t.ok(readsTooMuch(rows))
  t.ok(
    readsTooMuch(Object.assign(new Error('Memory limit (for query) exceeded'), { code: '241' })),
    'the code is a field',
  )
  t.notOk(readsTooMuch(Object.assign(new Error('Timeout exceeded'), { code: '159' })), 'time may pass on a later try')
  t.notOk(readsTooMuch(new Error('connect ECONNREFUSED 127.0.0.1:8123')), 'the server away')
  t.equal(clickHouseCode(undefined), undefined)
})
