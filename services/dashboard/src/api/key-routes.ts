// API keys of the signed-in account (U1): list with last-used times, create (secret shown once),
// deactivate, reactivate, revoke. Changes are records on the accounts topic (A1).
import type Router from '@koa/router'
import type { ApiKeyRecord } from '../../../../schemas/records.js'
import { AdminError } from '../../../shared/src/accounts/accounts-admin.js'
import { conflict, notFound, validation } from '../errors.js'
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

export function addKeyRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { account } = h
  r.get('/keys', async (ctx) => {
    const a = account(ctx)
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
    const { secret, record } = await d.admin.createKey({ accountId: a.account_id, name, type })
    d.log.info('key created', { account: a.account_id, key_id: record.key_id, type })
    ctx.status = 201
    ctx.body = { success: true, data: { ...keyView(record), secret } }
  })

  const STATUS: Record<string, 'active' | 'inactive' | 'revoked'> = { deactivate: 'inactive', reactivate: 'active', revoke: 'revoked' }
  r.post('/keys/:keyId/:action', async (ctx) => {
    const a = account(ctx)
    const status = STATUS[ctx.params.action!]
    if (!status) throw notFound('Action')
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
