// The pipeline without HTTP: limits, quota, records, append and quota release, with an in-memory
// appender standing in for Kafka (its interface is ours, one method).
import t from 'tap'
import { DEFAULT_PLANS, type Plan } from '../../../shared/src/accounts/plans.js'
import type { KeyLookup } from '../../../shared/src/accounts/key-table.js'
import { EventRateLimiter, MemoryLimits, MonthlyQuota, RequestLimiter } from '../limits/index.js'
import { validateBatch, type Item } from '../validation/index.js'
import { EventIds, type RequestContext } from '../records/index.js'
import type { OutRecord } from '../kafka/record-appender.js'
import { ServiceError } from '../errors.js'
import { RecordSealer } from '../privacy/record-sealer.js'
import { acceptItems, type ItemOutcome, type PipelineDeps } from './accept-items.js'
import { successBody, successJson } from './success-json.js'

const NOW = Date.UTC(2025, 2, 10, 12)

function lookup(type: 'live' | 'test', plan: Plan = DEFAULT_PLANS.hobby!): KeyLookup {
  return {
    key: {
      key_id: 'k1',
      account_id: 'acme',
      key_hash: 'h',
      masked: 'svc_live_…',
      name: 'n',
      type,
      status: 'active',
      created_at: 0,
      updated_at: 0,
    },
    account: {
      account_id: 'acme',
      name: 'Acme',
      plan: plan.name,
      status: 'active',
      owner_email: null,
      password_hash: null,
      created_at: 0,
      updated_at: 0,
    },
    plan,
  }
}

function items(n: number, identifies = 0): Array<{ index: number; item: Item }> {
  const events = [
    ...Array.from({ length: n }, (_, i) => ({ type: 'event', event: 'page_viewed', user: { id: `u${i}` } })),
    ...Array.from({ length: identifies }, (_, i) => ({
      type: 'identify',
      user: { id: `u${i}` },
      traits: { plan: 'pro' },
    })),
  ]
  const v = validateBatch({ sent_at: new Date(NOW).toISOString(), events }, NOW)
  if (!v.ok) throw new Error('fixture is invalid')
  return v.items.map((it) => {
    if (!it.ok) throw new Error('fixture item is invalid')
    return { index: it.index, item: it.item }
  })
}

const rc = (environment: 'live' | 'test'): RequestContext => ({
  accountId: 'acme',
  environment,
  keyId: 'k1',
  receivedAt: NOW,
  sentAt: NOW,
  ip: '127.0.0.1',
  userAgent: null,
})

function deps(append: (r: OutRecord[]) => Promise<void> = async () => {}) {
  const appended: OutRecord[][] = []
  const quota = new MonthlyQuota()
  const d: PipelineDeps = {
    limits: new MemoryLimits({ requests: new RequestLimiter(), events: new EventRateLimiter(), quota }),
    codec: { encode: (name, value) => Buffer.from(JSON.stringify({ name, value })) },
    eventIds: new EventIds(),
    appender: {
      append: async (r) => {
        appended.push(r)
        await append(r)
      },
    },
    topics: { events: 'ev', identifies: 'id' },
  }
  return { d, appended, quota }
}

t.test('every item becomes one record on its topic, appended once, one result per item', async (t) => {
  const { d, appended } = deps()
  const a = await acceptItems(d, lookup('live'), items(2, 1), rc('live'))
  t.equal(appended.length, 1, 'one append for the request')
  t.same(
    appended[0]!.map((r) => r.topic),
    ['ev', 'ev', 'id'],
  )
  t.same(
    a.results.map((r) => [r.index, r.success]),
    [
      [0, true],
      [1, true],
      [2, true],
    ],
  )
  t.ok(a.results.every((r) => typeof r.event_id === 'string'))
  t.equal(a.quotaError, undefined)
  t.same(successBody(a.results).data, { processed_count: 3, failed_count: 0, results: a.results })
})

t.test(
  'the monthly quota refuses live events past the limit; identifies and test keys never count (H5, H6)',
  async (t) => {
    const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 2 }
    const { d, appended } = deps()
    const a = await acceptItems(d, lookup('live', plan), items(3, 1), rc('live'))
    t.same(
      a.results.map((r) => r.success),
      [true, true, false, true],
    )
    t.equal(a.results[2]!.error?.code, 'MONTHLY_EVENT_LIMIT_EXCEEDED')
    t.equal(a.quotaError?.status, 429)
    t.equal(appended[0]!.length, 3)
    const test = await acceptItems(d, lookup('test', plan), items(3), rc('test'))
    t.ok(
      test.results.every((r) => r.success),
      'test-key events pass a spent live quota',
    )
  },
)

t.test(
  'test-key events stop at the test cap of the plan with their own code; a retried message is counted once (H33, H34)',
  async (t) => {
    const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 2, testEventsPerMonth: 3 }
    const { d } = deps()
    const withId = (n: number, id: string) =>
      items(n).map((x) => ({ ...x, item: { ...x.item, message_id: id } as Item }))
    for (let i = 0; i < 3; i++) {
      const a = await acceptItems(d, lookup('live', plan), withId(100, 'same'), rc('live'))
      t.equal(a.results.filter((r) => r.success).length, 100, `send ${i + 1}: 100 items of one message all stored`)
      t.equal(new Set(a.results.map((r) => r.event_id)).size, 1, 'as one event id')
    }
    t.same(
      (await acceptItems(d, lookup('live', plan), items(2), rc('live'))).results.map((r) => r.success),
      [true, false],
      'one counted, one left',
    )
    const test = await acceptItems(d, lookup('test', plan), items(5), rc('test'))
    t.same(
      test.results.map((r) => r.success),
      [true, true, true, false, false],
    )
    t.equal(test.results[3]!.error?.code, 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED')
    t.same([test.quotaError?.code, test.quotaError?.status], ['MONTHLY_TEST_EVENT_LIMIT_EXCEEDED', 429])
    t.ok(Number(test.quotaError?.headers['Retry-After']) > 0)
  },
)

t.test('over the per-second limit the request is refused whole before anything is appended (H4)', async (t) => {
  const plan = { ...DEFAULT_PLANS.hobby!, eventsPerSecond: 2 }
  const { d, appended } = deps()
  await t.rejects(acceptItems(d, lookup('live', plan), items(3), rc('live')), {
    code: 'EVENT_RATE_LIMIT_EXCEEDED',
    status: 429,
  })
  t.equal(appended.length, 0)
})

t.test('when Kafka does not take the records: 503 and the quota is given back (A4)', async (t) => {
  const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 2 }
  const { d, quota } = deps(async () => {
    throw new Error('broker down')
  })
  const err = await acceptItems(d, lookup('live', plan), items(2), rc('live')).catch((e) => e)
  t.ok(err instanceof ServiceError)
  t.same([err.code, err.status, err.retriable], ['SERVICE_UNAVAILABLE', 503, true])
  t.equal(quota.used('acme', NOW), 0, 'the reservation was released')
})

t.test('the success answer as text is the JSON of the success body, for every kind of outcome', async (t) => {
  const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 3 }
  const { d } = deps()
  // Accepted events and identifies, then events the quota refused: as acceptItems makes them.
  const a = await acceptItems(d, lookup('live', plan), items(5, 2), rc('live'))
  t.same(
    a.results.map((r) => r.success),
    [true, true, true, false, false, true, true],
  )
  t.equal(successJson(a.results), JSON.stringify(successBody(a.results)))
  // A refused item's message and details come from the client's data: quotes, backslashes,
  // control characters, lone surrogates and markup must come out as JSON.stringify writes them.
  const refused = (index: number, message: string): ItemOutcome => ({
    index,
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message,
      details: { errors: [{ path: `/events/${index}/event`, message, value: message }] },
    },
  })
  const odd = ['"quoted" \\ back', 'tab\there\nline\u0000nul', '\ud800 lone', '</script><b>é</b> 🎉', '']
  const mixed: ItemOutcome[] = [
    refused(0, odd[0]!),
    ...a.results.slice(0, 2).map((r, i) => ({ ...r, index: i + 1 })),
    ...odd.slice(1).map((m, i) => refused(i + 3, m)),
  ]
  t.equal(successJson(mixed), JSON.stringify(successBody(mixed)))
  for (const one of [[mixed[1]!], [mixed[0]!], []])
    t.equal(successJson(one), JSON.stringify(successBody(one)), `${one.length} outcome(s)`)
})

t.test('an accepted outcome whose id is not one of ours is written by JSON.stringify, not pasted', async (t) => {
  const odd: ItemOutcome[] = [
    { index: 0, success: true, event_id: 'a"b'.padEnd(36, 'x') },
    { index: 1, success: true, event_id: 'short' },
    { index: 2, success: true },
  ]
  const text = successJson(odd)
  t.equal(text, JSON.stringify(successBody(odd)))
  t.same(JSON.parse(text).data.results[0].event_id, odd[0]!.event_id)
})

t.test('A15: with a sealer, records are sealed under pseudonymous keys once their keys are stored', async (t) => {
  const { d, appended } = deps()
  const stored: string[] = []
  d.sealer = new RecordSealer(Buffer.alloc(32, 3), async (keys) => void stored.push(...keys.map((k) => k.id)), 100)
  const a = await acceptItems(d, lookup('live'), items(2, 1), rc('live'))
  t.ok(a.results.every((r) => r.success))
  t.equal(stored.length, 2, 'one key per person and month (u0, u1)')
  for (const r of appended[0]!) {
    t.notOk(['u0', 'u1'].includes(r.key.split('\u0000')[1]!), 'no user id in the Kafka key')
    const value = JSON.parse(r.value.toString()).value
    t.match(value.user_id, /^[0-9a-f]{32}$/, 'the pseudonym in place of the user id')
    t.ok(stored.includes(value.enc.key_id), 'sealed with a stored key')
  }
  t.equal(appended[0]![0]!.key, appended[0]![2]!.key, 'an event and an identify of u0: one partition key')
})

t.test('A15: a key that could not be stored: 503, nothing appended, the quota given back', async (t) => {
  const { d, appended } = deps()
  d.sealer = new RecordSealer(
    Buffer.alloc(32, 3),
    async () => {
      throw new Error('keys topic away')
    },
    100,
  )
  const err = await acceptItems(d, lookup('live'), items(1), rc('live')).catch((e) => e)
  t.type(err, ServiceError)
  t.equal(err.status, 503)
  t.equal(appended.length, 0)
})
