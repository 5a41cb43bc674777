import t from 'tap'
import { REDACTED, SAMPLE_BODY_MAX_CHARS, sampleBody } from './sample-body.js'

const LIVE = 'svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd'
const TEST = 'svc_test_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210dcba'

t.test('key fields and key-like values are replaced', async (t) => {
  const body = JSON.stringify({
    writeKey: LIVE,
    event: 'x',
    properties: { note: `my key is ${TEST}`, password: 'hunter2' },
  })
  const s = sampleBody(body)
  t.notMatch(s, /svc_(live|test)_/)
  t.notMatch(s, /hunter2/)
  t.match(s, `"writeKey":"${REDACTED}"`)
  t.match(s, '"event":"x"')
})

t.test('a key across the truncation point is gone, not half kept', async (t) => {
  const body = 'a'.repeat(SAMPLE_BODY_MAX_CHARS - 12) + LIVE
  const s = sampleBody(body)
  t.ok(s.endsWith(REDACTED) && s.length <= SAMPLE_BODY_MAX_CHARS, s.slice(-20))
  t.notMatch(s, /svc_live_/)
})

t.test('bodies are truncated; no body is an empty sample', async (t) => {
  t.equal(sampleBody('y'.repeat(1_000_000)).length, SAMPLE_BODY_MAX_CHARS)
  t.equal(sampleBody(undefined), '')
  t.equal(sampleBody('{"a":1}'), '{"a":1}')
})
