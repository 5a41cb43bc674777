import t from 'tap'
import { clickHouseCode, readsTooMuch } from './query-bounds.js'

t.test('the read bounds are told apart from other ClickHouse errors, on 18.16 and current servers', async (t) => {
  const old = new Error('Code: 158, e.displayText() = DB::Exception: Limit for rows to read exceeded: 200015872 rows read')
  t.equal(clickHouseCode(old), 158)
  t.ok(readsTooMuch(old), '18.16: the code is in the text')
  t.ok(readsTooMuch(Object.assign(new Error('Memory limit (for query) exceeded'), { code: '241' })), 'current: the code is a field')
  t.notOk(readsTooMuch(Object.assign(new Error('Timeout exceeded'), { code: '159' })), 'time may pass on a later try')
  t.notOk(readsTooMuch(new Error('connect ECONNREFUSED 127.0.0.1:8123')), 'the server away')
  t.equal(clickHouseCode(undefined), undefined)
})
