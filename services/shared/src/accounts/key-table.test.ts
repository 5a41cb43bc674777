import t from 'tap'
import type { AccountRecord, ApiKeyRecord, PlanRecord } from '../../../../schemas/records.js'
import { DEFAULT_PLANS, parsePlans } from './plans.js'
import { hashKey } from './key-hash.js'
import { KeyTable } from './key-table.js'

const KEY1 = 'svc_live_' + 'a'.repeat(40)
const KEY2 = 'svc_test_' + 'b'.repeat(40)

const account = (over: Partial<AccountRecord> = {}): AccountRecord => ({
  account_id: 'acc1',
  name: 'Acme',
  plan: 'launch',
  status: 'active',
  owner_email: null,
  password_hash: null,
  created_at: 0,
  updated_at: 0,
  ...over,
})
const apiKey = (key: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  key_id: 'k1',
  account_id: 'acc1',
  key_hash: hashKey(key),
  masked: 'svc_live_aaaa…aaaa',
  name: 'server',
  type: 'live',
  status: 'active',
  created_at: 0,
  updated_at: 0,
  ...over,
})

t.test('lookup finds an active key of an active account with its plan', async (t) => {
  const kt = new KeyTable()
  kt.applyAccount(account())
  kt.applyKey(apiKey(KEY1))
  const r = kt.lookup(hashKey(KEY1))
  t.ok(r)
  t.equal(r!.key.key_id, 'k1')
  t.equal(r!.account.account_id, 'acc1')
  t.equal(r!.plan, DEFAULT_PLANS.launch)
  t.equal(kt.lookup(hashKey(KEY2)), undefined, 'unknown hash')
  t.equal(kt.lookup('nothex'), undefined)
  t.equal(kt.lookup(hashKey(KEY1).toUpperCase()), undefined, 'hash is compared exactly')
})

t.test('key records arriving before their account (replay order)', async (t) => {
  const kt = new KeyTable()
  kt.applyKey(apiKey(KEY1))
  t.equal(kt.lookup(hashKey(KEY1)), undefined, 'account missing')
  kt.applyAccount(account())
  t.ok(kt.lookup(hashKey(KEY1)))
})

t.test('status changes by key_id: deactivate, revoke, reactivate, delete', async (t) => {
  const kt = new KeyTable()
  kt.applyAccount(account())
  kt.applyKey(apiKey(KEY1))
  kt.applyKey(apiKey(KEY1, { status: 'inactive', updated_at: 1 }))
  t.equal(kt.lookup(hashKey(KEY1)), undefined, 'inactive')
  t.equal(kt.keyCount, 1)
  kt.applyKey(apiKey(KEY1, { status: 'active', updated_at: 2 }))
  t.equal(kt.lookup(hashKey(KEY1))?.key.updated_at, 2, 'reactivated')
  kt.applyKey(apiKey(KEY1, { status: 'revoked', updated_at: 3 }))
  t.equal(kt.lookup(hashKey(KEY1)), undefined, 'revoked')
  kt.applyKey(apiKey(KEY1, { status: 'active', updated_at: 4 }))
  t.equal(
    kt.lookup(hashKey(KEY1)),
    undefined,
    'revocation is terminal: a later active record does not bring the key back',
  )
  kt.removeKey('k1')
  t.equal(kt.lookup(hashKey(KEY1)), undefined, 'deleted (tombstone)')
  t.equal(kt.keyCount, 0)
  kt.removeKey('k1') // idempotent
})

t.test('a disabled or removed account disables all its keys', async (t) => {
  const kt = new KeyTable()
  kt.applyAccount(account())
  kt.applyKey(apiKey(KEY1))
  kt.applyKey(apiKey(KEY2, { key_id: 'k2', type: 'test' }))
  t.equal(kt.lookup(hashKey(KEY2))?.account.account_id, 'acc1', 'two keys, one account')
  kt.applyAccount(account({ status: 'disabled' }))
  t.equal(kt.lookup(hashKey(KEY1)), undefined)
  t.equal(kt.lookup(hashKey(KEY2)), undefined)
  kt.applyAccount(account())
  t.ok(kt.lookup(hashKey(KEY1)))
  kt.removeAccount('acc1')
  t.equal(kt.lookup(hashKey(KEY1)), undefined)
})

t.test('plans: configured defaults, overridden by Plan records, unknown falls back', async (t) => {
  const kt = new KeyTable({ plans: parsePlans('{"launch":{"requestsPerMinute":1500}}') })
  kt.applyAccount(account({ plan: 'Launch' }))
  kt.applyKey(apiKey(KEY1))
  t.equal(kt.lookup(hashKey(KEY1))!.plan.requestsPerMinute, 1500, 'configuration, case-insensitive name')
  const rec: PlanRecord = {
    name: 'launch',
    requests_per_minute: 2000,
    events_per_second: 500,
    events_per_month: 30000,
    emails_per_month: 1,
    updated_at: 1,
  }
  kt.applyPlan(rec)
  t.same(
    { ...kt.lookup(hashKey(KEY1))!.plan },
    {
      name: 'launch',
      requestsPerMinute: 2000,
      eventsPerSecond: 500,
      eventsPerMonth: 30000,
      emailsPerMonth: 1,
      testEventsPerMonth: 30000,
    },
  )
  kt.removePlan('launch')
  t.equal(kt.lookup(hashKey(KEY1))!.plan.requestsPerMinute, 1500, 'tombstone restores the configured plan')
  kt.applyAccount(account({ plan: 'platinum' }))
  t.equal(kt.lookup(hashKey(KEY1))!.plan.name, 'hobby', 'unknown plan falls back to hobby')
  kt.applyPlan({ ...rec, name: 'platinum', requests_per_minute: 99999 })
  t.equal(kt.lookup(hashKey(KEY1))!.plan.requestsPerMinute, 99999, 'a Plan record adds a plan')
  kt.applyAccount(account({ plan: 'orbit' }))
  t.equal(kt.lookup(hashKey(KEY1))!.plan.requestsPerMinute, 10000, 'account plan change')
})

t.test('constructor rejects a fallback plan that does not exist', async (t) => {
  t.throws(() => new KeyTable({ fallbackPlan: 'nope' }), /fallback plan "nope"/)
})

t.test('a key record with a malformed hash is never matched', async (t) => {
  const kt = new KeyTable()
  kt.applyAccount(account())
  kt.applyKey(apiKey(KEY1))
  kt.applyKey(apiKey(KEY1, { key_hash: 'zz' }))
  t.equal(kt.keyCount, 0)
  t.equal(kt.lookup(hashKey(KEY1)), undefined)
})
