import t from 'tap'
import { bodyAuthorization, headerAuthorization } from './write-key.js'
import { parseAuthorization } from '../auth/index.js'

const KEY = 'svc_live_' + 'A1'.repeat(20)
const b64 = (s: string) => Buffer.from(s).toString('base64')

t.test('Basic: the user name is the key, the password ignored; the result is what our parser reads', async (t) => {
  t.equal(
    headerAuthorization(`Basic ${b64(KEY + ':')}`),
    `Bearer ${KEY}`,
    'Segment libraries: key and an empty password',
  )
  t.equal(
    headerAuthorization(`basic   ${b64(KEY + ':anything')}`),
    `Bearer ${KEY}`,
    'scheme in any case, password ignored',
  )
  t.equal(headerAuthorization(`Basic ${b64(KEY)}`), `Bearer ${KEY}`, 'no colon: all of it')
  t.same(parseAuthorization(headerAuthorization(`Basic ${b64(KEY + ':')}`)), { ok: true, key: KEY, type: 'live' })
  const empty = parseAuthorization(headerAuthorization(`Basic ${b64(':')}`))
  t.equal(empty.ok, false, 'an empty user name is no key')
})

t.test('Bearer and other headers pass through to our parser unchanged', async (t) => {
  t.equal(headerAuthorization(`Bearer ${KEY}`), `Bearer ${KEY}`)
  t.equal(headerAuthorization('Token x'), 'Token x')
  t.equal(headerAuthorization(undefined), undefined)
})

t.test('the body writeKey', async (t) => {
  t.equal(bodyAuthorization({ writeKey: KEY, batch: [] }), `Bearer ${KEY}`)
  t.equal(bodyAuthorization({ writeKey: '' }), undefined)
  t.equal(bodyAuthorization({ writeKey: 5 }), undefined)
  t.equal(bodyAuthorization([KEY]), undefined)
  t.equal(bodyAuthorization(null), undefined)
})
