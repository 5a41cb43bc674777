// API keys of the signed-in account (U1): list with last-used times, create (secret shown once),
// deactivate, reactivate, revoke. Changes are records on the accounts topic (A1).
import type Router from '@koa/router'
import type { ApiKeyRecord } from '../../../../schemas/records.js'
import { AdminError } from '../../../shared/src/accounts/accounts-admin.js'
import { conflict, keyLimit, notFound, validation } from '../errors.js'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { body, str } from './params.js'

export const keyView = (k: ApiKeyRecord, lastUsed?: number) => ({
  key_id: k.key_id,
  name: k.name,
  type: k.type,
  masked: k.masked,
  status: k.status,
  created_at: new Date(k.created_at).toISOString(),
  updated_at: new Date(k.updated_at).toISOString(),
  last_used_at: lastUsed ? new Date(lastUsed).toISOString() : null,
})

/** U5: an account holds at most `max` keys that are not revoked (a revoked key frees its place), and
 * at most KEY_RECORDS_PER_CAP times as many in all, revoked ones included: every key is a record each
 * service replays at start. `creating`: this account's creations still in flight in this process. */
export const KEY_RECORDS_PER_CAP = 10

export function checkKeyCap(keys: readonly ApiKeyRecord[], max: number, creating = 0): void {
  const held = keys.filter((k) => k.status !== 'revoked').length + creating
  if (held >= max) throw keyLimit(`This account holds ${held} keys, the most it may; revoke one to create another`, max)
  const all = keys.length + creating
  if (all >= max * KEY_RECORDS_PER_CAP)
    throw keyLimit(
      `This account has created ${all} keys, the most it may; ask support to raise the limit`,
      max * KEY_RECORDS_PER_CAP,
    )
}

export function addKeyRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { account, countRead, countKeyChange } = h
  const creating = new Map<string, number>()
  r.get('/keys', async (ctx) => {
    const a = account(ctx)
    countRead(ctx)
    const lastUsed = await d.queries.keysLastUsed(a.account_id).catch((err) => {
      d.log.warn('last-used times unavailable', { err: err as Error })
      return new Map<string, number>()
    })
    ctx.body = { success: true, data: d.admin.keysOf(a.account_id).map((k) => keyView(k, lastUsed.get(k.key_id))) }
  })

  r.post('/keys', async (ctx) => {
    const a = account(ctx)
    const b = body(ctx)
    const name = str(b.name, 'name', { required: true, max: 100 })!.trim()
    if (!name) throw validation('name is required', { field: 'name' })
    const type = b.type ?? 'live'
    if (type !== 'live' && type !== 'test') throw validation('type must be live or test', { field: 'type' })
    countKeyChange(ctx)
    // Creations in flight count too: a parallel burst cannot all pass the cap before any key lands.
    checkKeyCap(d.admin.keysOf(a.account_id), d.cfg.keys.maxPerAccount, creating.get(a.account_id))
    creating.set(a.account_id, (creating.get(a.account_id) ?? 0) + 1)
    const { secret, record } = await d.admin.createKey({ accountId: a.account_id, name, type }).finally(() => {
      const n = creating.get(a.account_id)! - 1
      if (n > 0) creating.set(a.account_id, n)
      else creating.delete(a.account_id)
    })
    d.log.info('key created', { account: a.account_id, key_id: record.key_id, type })
    ctx.status = 201
    ctx.body = { success: true, data: { ...keyView(record), secret } }
  })

  const STATUS: Record<string, 'active' | 'inactive' | 'revoked'> = {
    deactivate: 'inactive',
    reactivate: 'active',
    revoke: 'revoked',
  }
  r.post('/keys/:keyId/:action', async (ctx) => {
    const a = account(ctx)
    const status = STATUS[ctx.params.action!]
    if (!status) throw notFound('Action')
    countKeyChange(ctx)
    try {
      const k = await d.admin.setKeyStatus(ctx.params.keyId!, status, a.account_id)
      d.log.info('key status changed', { account: a.account_id, key_id: k.key_id, status })
      ctx.body = { success: true, data: keyView(k) }
    } catch (err) {
      if (err instanceof AdminError && err.code === 'NOT_FOUND') throw notFound('Key')
      if (err instanceof AdminError && err.code === 'CONFLICT') throw conflict(err.message)
      throw err
    }
  })
}
