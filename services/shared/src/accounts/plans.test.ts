import t from 'tap'
import { DEFAULT_PLANS, parsePlans, planFromRecord, planNamed, refusedRequestsPerMinute } from './plans.js'

t.test('default plans follow docs/api.md Limits and H4', async (t) => {
  t.same(
    { ...DEFAULT_PLANS.hobby },
    {
      name: 'hobby',
      requestsPerMinute: 100,
      eventsPerSecond: 1000,
      eventsPerMonth: 1000,
      emailsPerMonth: 100,
      testEventsPerMonth: 1000,
    },
  )
  t.same(
    { ...DEFAULT_PLANS.launch },
    {
      name: 'launch',
      requestsPerMinute: 1000,
      eventsPerSecond: 1000,
      eventsPerMonth: 20000,
      emailsPerMonth: 5000,
      testEventsPerMonth: 20000,
    },
  )
  t.same(
    { ...DEFAULT_PLANS.orbit },
    {
      name: 'orbit',
      requestsPerMinute: 10000,
      eventsPerSecond: 1000,
      eventsPerMonth: 200000,
      emailsPerMonth: 25000,
      testEventsPerMonth: 200000,
    },
  )
  t.ok(DEFAULT_PLANS.unlimited!.requestsPerMinute >= 1e9)
  t.ok(DEFAULT_PLANS.unlimited!.eventsPerMonth >= 1e9)
  t.ok(Object.isFrozen(DEFAULT_PLANS) && Object.isFrozen(DEFAULT_PLANS.hobby))
})

t.test('parsePlans overrides fields of existing plans and adds new ones', async (t) => {
  const plans = parsePlans(
    JSON.stringify({
      Hobby: { requestsPerMinute: 200 },
      enterprise: {
        requestsPerMinute: 50000,
        eventsPerSecond: 5000,
        eventsPerMonth: 10000000,
        emailsPerMonth: 1000000,
      },
    }),
  )
  t.equal(plans.hobby!.requestsPerMinute, 200)
  t.equal(plans.hobby!.eventsPerMonth, 1000, 'unchanged fields keep the default')
  t.equal(plans.enterprise!.eventsPerSecond, 5000)
  t.equal(plans.enterprise!.name, 'enterprise')
  t.equal(plans.orbit!.requestsPerMinute, 10000, 'plans not mentioned are kept')
  t.equal(plans.enterprise!.testEventsPerMonth, 10000000, 'a new plan without a test cap gets its live cap (H33)')
  t.equal(parsePlans('{"hobby":{"testEventsPerMonth":50}}').hobby!.testEventsPerMonth, 50)
  t.equal(DEFAULT_PLANS.hobby!.requestsPerMinute, 100, 'defaults are not mutated')
})

t.test('parsePlans rejects bad configuration with a clear message', async (t) => {
  t.throws(() => parsePlans('{nope'), /not valid JSON/)
  t.throws(() => parsePlans('[]'), /JSON object keyed by plan name/)
  t.throws(() => parsePlans('{"hobby": 5}'), /plan "hobby": must be an object/)
  t.throws(
    () => parsePlans('{"hobby": {"requestsPerMinute": -1}}'),
    /"requestsPerMinute" must be a non-negative integer/,
  )
  t.throws(() => parsePlans('{"hobby": {"requestsPerMinute": 1.5}}'), /non-negative integer/)
  t.throws(() => parsePlans('{"hobby": {"requestsPerMinute": "100"}}'), /non-negative integer, got "100"/)
  t.throws(() => parsePlans('{"hobby": {"rpm": 100}}'), /unknown field "rpm"/)
  t.throws(() => parsePlans('{"pro": {"requestsPerMinute": 100}}'), /plan "pro": missing "eventsPerSecond"/)
})

t.test('refused requests get a budget of a tenth of the per-minute limit, at least 10 (H32)', async (t) => {
  t.equal(refusedRequestsPerMinute(DEFAULT_PLANS.hobby!), 10)
  t.equal(refusedRequestsPerMinute(DEFAULT_PLANS.orbit!), 1000)
  t.equal(
    refusedRequestsPerMinute({ ...DEFAULT_PLANS.hobby!, requestsPerMinute: 3 }),
    3,
    'never more than the limit itself',
  )
})

t.test('planFromRecord maps the Plan record', async (t) => {
  t.same(
    planFromRecord({
      name: 'Launch',
      requests_per_minute: 7,
      events_per_second: 8,
      events_per_month: 9,
      emails_per_month: 10,
      updated_at: 0,
    }),
    {
      name: 'launch',
      requestsPerMinute: 7,
      eventsPerSecond: 8,
      eventsPerMonth: 9,
      emailsPerMonth: 10,
      testEventsPerMonth: 9,
    },
  )
})

t.test('planNamed: a Plan record wins over the configured plan, an unknown name falls back', async (t) => {
  const record = {
    name: 'Launch',
    requests_per_minute: 7,
    events_per_second: 8,
    events_per_month: 9,
    emails_per_month: 10,
    updated_at: 0,
  }
  t.equal(planNamed('launch', [record], DEFAULT_PLANS).requestsPerMinute, 7)
  t.equal(planNamed('LAUNCH', [], DEFAULT_PLANS).requestsPerMinute, 1000)
  t.equal(planNamed('nope', [], DEFAULT_PLANS).name, 'hobby')
})
