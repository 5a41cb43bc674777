// Reading request input for the dashboard API: the JSON body and query parameters, checked, with
// a 400 VALIDATION_ERROR naming the field otherwise.
import { isMonthKey } from '../../../shared/src/usage/month-key.js'
import { validation } from '../errors.js'
import type { Ctx } from './api-context.js'
import type { Environment } from './queries.js'

const DAY = 86_400_000

export function body(ctx: Ctx): Record<string, unknown> {
  const b = (ctx.request as any).body
  return b && typeof b === 'object' && !Array.isArray(b) ? b : {}
}

export function str(v: unknown, field: string, opts: { max?: number; required?: boolean } = {}): string | undefined {
  if (v === undefined || v === null || v === '') {
    if (opts.required) throw validation(`${field} is required`, { field })
    return undefined
  }
  if (typeof v !== 'string') throw validation(`${field} must be a string`, { field })
  if (v.length > (opts.max ?? 255))
    throw validation(`${field} is too long (at most ${opts.max ?? 255} characters)`, { field })
  return v
}

export function q(ctx: Ctx, name: string, max = 255): string | undefined {
  const v = ctx.query[name]
  return str(Array.isArray(v) ? v[0] : v, name, { max })
}

export function envParam(ctx: Ctx, name = 'environment'): Environment | undefined {
  const v = q(ctx, name)
  if (v === undefined || v === 'all') return undefined
  if (v !== 'live' && v !== 'test') throw validation(`${name} must be live, test or all`, { field: name })
  return v
}

export function intParam(ctx: Ctx, name: string, def: number, min: number, max: number): number {
  const v = q(ctx, name)
  if (v === undefined) return def
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max)
    throw validation(`${name} must be an integer from ${min} to ${max}`, { field: name })
  return n
}

/** A month key (`YYYY-MM`, UTC) no later than `latest` (the current month's key); undefined when absent. */
export function monthParam(ctx: Ctx, name: string, latest: string): string | undefined {
  const v = q(ctx, name, 7)
  if (v === undefined) return undefined
  if (!isMonthKey(v) || v < '1970-01') throw validation(`${name} must be a month as YYYY-MM`, { field: name })
  if (v > latest) throw validation(`${name} must not be after the current month (${latest})`, { field: name })
  return v
}

export function timeParam(ctx: Ctx, name: string, def: number): Date {
  const v = q(ctx, name, 64)
  if (v === undefined) return new Date(def)
  const d = new Date(/^\d+$/.test(v) ? Number(v) : v)
  if (!Number.isFinite(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 2105)
    throw validation(`${name} must be an ISO 8601 time`, { field: name })
  return d
}

export function range(ctx: Ctx, defaultDays: number): { from: Date; to: Date } {
  const now = Date.now()
  const to = timeParam(ctx, 'to', now + 60_000)
  const from = timeParam(ctx, 'from', to.getTime() - defaultDays * DAY)
  if (from >= to) throw validation('from must be before to', { field: 'from' })
  if (to.getTime() - from.getTime() > 366 * DAY) throw validation('the range is at most 366 days', { field: 'from' })
  return { from, to }
}
