import t from 'tap'
import { EVENT_ID_NAMESPACE, EventIds, uuidv7Time } from './event-id.js'
import {
  MAX_FUTURE_MS,
  correctTime,
  toEventRecord as toEventRecordWith,
  toIdentifyRecord as toIdentifyRecordWith,
  type RequestContext,
} from './to-record.js'
import type { EventItem, IdentifyItem } from '../validation/validate.js'
import { timestampMs } from '../validation/timestamp.js'

const ids = new EventIds()
const uuidv5 = (ns: string, name: string) => ids.uuidv5(ns, name)
const toEventRecord = (item: EventItem, c: RequestContext) => toEventRecordWith(item, c, ids)
const toIdentifyRecord = (item: IdentifyItem, c: RequestContext) => toIdentifyRecordWith(item, c, ids)

const H = 60 * 60 * 1000
const RECEIVED = Date.UTC(2024, 4, 1, 12, 0, 0)

const rc = (over: Partial<RequestContext> = {}): RequestContext => ({
  accountId: 'acc_1',
  environment: 'live',
  keyId: 'key_1',
  receivedAt: RECEIVED,
  sentAt: null,
  ip: '203.0.113.7',
  userAgent: 'sdk/1.0',
  ...over,
})

t.test('correctTime (H13)', async (t) => {
  t.same(correctTime(null, null, RECEIVED), { timestamp: RECEIVED, original: null, flagged: false })
  t.same(correctTime(null, RECEIVED - 5000, RECEIVED), { timestamp: RECEIVED, original: null, flagged: false })
  t.same(correctTime(RECEIVED - H, null, RECEIVED), { timestamp: RECEIVED - H, original: RECEIVED - H, flagged: false })
  // Client clock 2 h fast: sent_at says 14:00, event 13:30 -> 30 min before receipt.
  t.same(correctTime(RECEIVED + 1.5 * H, RECEIVED + 2 * H, RECEIVED), {
    timestamp: RECEIVED - 0.5 * H,
    original: RECEIVED + 1.5 * H,
    flagged: false,
  })
  // Client clock 3 days slow, offline queue: corrected relative to receipt.
  t.same(correctTime(RECEIVED - 73 * H, RECEIVED - 72 * H, RECEIVED), {
    timestamp: RECEIVED - H,
    original: RECEIVED - 73 * H,
    flagged: false,
  })
  t.same(
    correctTime(RECEIVED + MAX_FUTURE_MS, null, RECEIVED),
    {
      timestamp: RECEIVED + MAX_FUTURE_MS,
      original: RECEIVED + MAX_FUTURE_MS,
      flagged: false,
    },
    'exactly 24 h ahead is kept',
  )
  t.same(
    correctTime(RECEIVED + MAX_FUTURE_MS + 1, null, RECEIVED),
    {
      timestamp: RECEIVED,
      original: RECEIVED + MAX_FUTURE_MS + 1,
      flagged: true,
    },
    'more than 24 h ahead is replaced and flagged',
  )
  t.same(correctTime(RECEIVED + 48 * H, RECEIVED, RECEIVED), {
    timestamp: RECEIVED,
    original: RECEIVED + 48 * H,
    flagged: true,
  })
  t.same(
    correctTime(RECEIVED + 48 * H, RECEIVED + 47 * H, RECEIVED),
    {
      timestamp: RECEIVED + H,
      original: RECEIVED + 48 * H,
      flagged: false,
    },
    'future raw value but sane after skew correction',
  )
})

const event = (over: Partial<EventItem> = {}): EventItem => ({
  kind: 'event',
  event: 'signup',
  user: { id: 'u1' },
  properties: { a: 1 },
  context: { platform: 'ios', ip: '10.0.0.1', user_agent: 'spoofed' },
  ...over,
})

t.test('toEventRecord maps every field', async (t) => {
  const r = toEventRecord(
    event({
      timestamp: timestampMs('2024-05-01T13:00:00Z'),
      message_id: 'm1',
      user: { id: 'u1', email: 'a@b.co', traits: { plan: 'pro' } },
    }),
    rc({ sentAt: RECEIVED + 2 * H }),
  )
  t.strictSame(r, {
    event_id: uuidv5(EVENT_ID_NAMESPACE, '["acc_1","live","m1"]'),
    account_id: 'acc_1',
    environment: 'live',
    key_id: 'key_1',
    event: 'signup',
    user_id: 'u1',
    user_email: 'a@b.co',
    user_traits: '{"plan":"pro"}',
    timestamp: RECEIVED - H,
    original_timestamp: RECEIVED + H,
    received_at: RECEIVED,
    sent_at: RECEIVED + 2 * H,
    timestamp_flagged: false,
    properties: '{"a":1}',
    context: '{"platform":"ios","ip":"203.0.113.7","user_agent":"sdk/1.0"}',
    ip: '203.0.113.7',
    user_agent: 'sdk/1.0',
    message_id: 'm1',
    anonymous_id: null,
  })
})

t.test('toEventRecord defaults', async (t) => {
  const r = toEventRecord(event({ context: {} }), rc({ environment: 'test', ip: null, userAgent: null }))
  t.equal(uuidv7Time(r.event_id), RECEIVED, 'UUIDv7 at receipt without message_id')
  t.match(r.event_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/)
  t.equal(r.environment, 'test')
  t.equal(r.timestamp, RECEIVED)
  t.equal(r.original_timestamp, null)
  t.equal(r.timestamp_flagged, false)
  t.equal(r.user_email, null)
  t.equal(r.user_traits, null)
  t.equal(r.message_id, null)
  t.equal(r.sent_at, null)
  t.same(JSON.parse(r.context), { ip: null, user_agent: null }, 'client cannot set ip through context (H14)')
  t.equal(
    toEventRecord(event({ user: { id: 'u', traits: { email: 't@x.co' } } }), rc()).user_email,
    't@x.co',
    'email from user.traits',
  )
  t.equal(
    toEventRecord(event({ user: { id: 'u', email: 'e@x.co', traits: { email: 't@x.co' } } }), rc()).user_email,
    'e@x.co',
    'user.email first',
  )
  const flagged = toEventRecord(event({ timestamp: timestampMs('2024-05-03T12:00:00Z') }), rc())
  t.equal(flagged.timestamp, RECEIVED)
  t.equal(flagged.original_timestamp, RECEIVED + 48 * H)
  t.equal(flagged.timestamp_flagged, true)
})

t.test('toIdentifyRecord', async (t) => {
  const item: IdentifyItem = {
    kind: 'identify',
    user: { id: 'u9', email: 'u@x.co' },
    traits: { plan: 'pro', email: 't@x.co' },
    email: 't@x.co',
    timestamp: timestampMs('2024-05-01T11:00:00'),
    context: { locale: 'de', ip: '1.1.1.1' },
    message_id: 'idm',
  }
  t.strictSame(toIdentifyRecord(item, rc()), {
    event_id: uuidv5(EVENT_ID_NAMESPACE, '["acc_1","live","idm"]'),
    account_id: 'acc_1',
    environment: 'live',
    key_id: 'key_1',
    user_id: 'u9',
    email: 't@x.co',
    traits: '{"plan":"pro","email":"t@x.co"}',
    timestamp: RECEIVED - H,
    original_timestamp: RECEIVED - H,
    received_at: RECEIVED,
    sent_at: null,
    timestamp_flagged: false,
    context: '{"locale":"de","ip":"203.0.113.7","user_agent":"sdk/1.0"}',
    ip: '203.0.113.7',
    user_agent: 'sdk/1.0',
    message_id: 'idm',
    anonymous_id: null,
  })
  t.equal(
    toIdentifyRecord({ ...item, anonymous_id: 'anon-1' }, rc()).anonymous_id,
    'anon-1',
    'H52: a Segment item keeps its anonymous id',
  )
  const bare = toIdentifyRecord({ kind: 'identify', user: { id: 'u' }, traits: {}, context: {} }, rc())
  t.equal(bare.email, null)
  t.equal(bare.traits, '{}')
  t.equal(bare.timestamp, RECEIVED)
  t.equal(uuidv7Time(bare.event_id), RECEIVED)
})

t.test('context JSON is the client context with the server fields last, for every request', async (t) => {
  const merged = (c: Record<string, unknown>, ip: string | null, ua: string | null) =>
    JSON.stringify({ ...c, ip, user_agent: ua })
  const contexts: Array<Record<string, unknown>> = [
    {},
    { platform: 'web' },
    JSON.parse('{"2":"b","1":"a","x":{"y":[1,"\\u00e9",null]},"s":"q\\"uote"}'),
    { user_agent: 'spoofed', platform: 'ios' },
    { locale: 'de', ip: '1.1.1.1' },
  ]
  // Requests with different server fields in turn: none takes another's ip or user agent.
  for (const [ip, ua] of [
    ['203.0.113.7', 'sdk/1.0'],
    [null, null],
    ['198.51.100.2', 'a "quoted" agent'],
    ['203.0.113.7', 'sdk/1.0'],
  ] as const) {
    for (const c of contexts) {
      t.equal(toEventRecord(event({ context: c }), rc({ ip, userAgent: ua })).context, merged(c, ip, ua))
      t.equal(
        toIdentifyRecord({ kind: 'identify', user: { id: 'u' }, traits: {}, context: c }, rc({ ip, userAgent: ua }))
          .context,
        merged(c, ip, ua),
      )
    }
  }
})
