// Erasure of one of the signed-in account's users, and the receipts (A12, docs/privacy.md). A request
// is a record on the erasures topic (PrivacyAdmin); the projector purges the person and writes the
// receipt back, which GET /api/erasures shows step by step (GET /api/erasures/:id one request's, which
// the user page polls while it watches a receipt: its size does not grow with the account's erasures).
// The account is the session's, never a parameter; the user id is the one the account's events carry.
import type Router from '@koa/router'
import type { ErasureRecord } from '../../../../schemas/records.js'
import { AdminError } from '../../../shared/src/accounts/accounts-admin.js'
import { MAX_USER_ID_LENGTH } from '../../../shared/src/privacy/privacy-admin.js'
import { retentionProblem } from '../../../shared/src/privacy/retention.js'
import { notFound, validation } from '../errors.js'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { body, str } from './params.js'

const at = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export const erasureView = (e: ErasureRecord) => ({
  erasure_id: e.erasure_id,
  // A22: with sealing on the topic names the person by pseudonym; the user id is shown where it is known.
  user_id: e.user_id || null,
  pseudonym: e.pseudonym ?? null,
  requested_by: e.requested_by,
  requested_at: at(e.requested_at),
  suppress: e.suppress,
  steps: {
    projections_purged_at: at(e.projections_purged_at),
    // Stage 2 (crypto-shredding of the Kafka history) sets these; null until then (docs/privacy.md).
    history_unreadable_at: at(e.history_unreadable_at),
    disk_gone_at: at(e.disk_gone_at),
  },
})

export function addPrivacyRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const privacy = d.privacy
  if (privacy === undefined) return
  const { account, countKeyChange } = h
  r.get('/erasures', async (ctx) => {
    const a = account(ctx)
    ctx.body = { success: true, data: privacy.list(a.account_id).map(erasureView) }
  })

  r.get('/erasures/:id', async (ctx) => {
    const a = account(ctx)
    const e = privacy.list(a.account_id).find((x) => x.erasure_id === ctx.params.id)
    if (e === undefined) throw notFound('Erasure')
    ctx.body = { success: true, data: erasureView(e) }
  })

  // H60: how many months of events the account keeps (0: for ever), a field of its account record.
  r.get('/retention', async (ctx) => {
    ctx.body = { success: true, data: { months: account(ctx).retention_months ?? 0 } }
  })

  r.post('/retention', async (ctx) => {
    const a = account(ctx)
    const months = body(ctx).months
    const problem = retentionProblem(months)
    if (problem !== undefined) throw validation(problem, { field: 'months' })
    countKeyChange(ctx)
    const updated = await d.admin.setRetention(a.account_id, months as number)
    d.log.info('retention set', { account: a.account_id, months })
    ctx.body = { success: true, data: { months: updated.retention_months ?? 0 } }
  })

  r.post('/erasures', async (ctx) => {
    const a = account(ctx)
    const b = body(ctx)
    const userId = str(b.user_id, 'user_id', { required: true, max: MAX_USER_ID_LENGTH })!
    if (userId === '') throw validation('user_id is required', { field: 'user_id' })
    if (b.suppress !== undefined && typeof b.suppress !== 'boolean')
      throw validation('suppress must be true or false', { field: 'suppress' })
    // Erasures are account changes: counted with the key changes per minute (U5).
    countKeyChange(ctx)
    try {
      const e = await privacy.requestErasure({
        accountId: a.account_id,
        userId,
        requestedBy: `dashboard:${a.owner_email ?? a.account_id}`,
        suppress: b.suppress === true,
      })
      d.log.info('erasure requested', { account: a.account_id, erasure_id: e.erasure_id, suppress: e.suppress })
      ctx.status = 202
      ctx.body = { success: true, data: erasureView(e) }
    } catch (err) {
      if (err instanceof AdminError && err.code === 'INVALID') throw validation(err.message, { field: 'user_id' })
      throw err
    }
  })
}
