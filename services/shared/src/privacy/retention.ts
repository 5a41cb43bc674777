// Per-account retention of events (H60): an account keeps `retention_months` months of its events in
// ClickHouse and in what a replay writes; 0 (the default) keeps them for ever, as before. One source
// for the rule: the projector's retention job deletes by it and a replay skips by it.
import type { AccountRecord } from '../../../../schemas/records.js'

/** The longest retention an account can set (docs/limits.md); longer is "for ever" (0). */
export const MAX_RETENTION_MONTHS = 120

/** Why `months` is not a retention an account can set, or undefined when it is. */
export function retentionProblem(months: unknown): string | undefined {
  if (typeof months === 'number' && Number.isInteger(months) && months >= 0 && months <= MAX_RETENTION_MONTHS)
    return undefined
  return `retention must be a whole number of months from 1 to ${MAX_RETENTION_MONTHS}, or 0 to keep events for ever`
}

/**
 * The first instant kept (Unix ms) by a retention of `months` at `now`: the start of the same UTC day
 * `months` calendar months earlier (the last day of that month when it is shorter), so every run of one
 * day uses the same cutoff. Undefined for 0: nothing expires.
 */
export function retentionCutoff(months: number, now: number): number | undefined {
  if (months <= 0) return undefined
  const d = new Date(now)
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth() - months
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay))
}

/** The accounts that keep their events for a limited time, followed from the accounts topic. */
export class RetentionRules {
  private readonly months = new Map<string, number>()

  apply(a: Pick<AccountRecord, 'account_id' | 'retention_months'>): void {
    const m = a.retention_months ?? 0
    if (m > 0) this.months.set(a.account_id, m)
    else this.months.delete(a.account_id)
  }

  get size(): number {
    return this.months.size
  }

  /** The accounts with a retention and their cutoffs at `now` (Unix ms). */
  cutoffs(now: number): { account_id: string; months: number; cutoff: number }[] {
    return [...this.months].map(([account_id, months]) => ({
      account_id,
      months,
      cutoff: retentionCutoff(months, now)!,
    }))
  }

  /** The cutoff (Unix ms) of an account at `now`, or undefined when it keeps everything. */
  cutoffOf(accountId: string, now: number): number | undefined {
    const m = this.months.get(accountId)
    return m === undefined ? undefined : retentionCutoff(m, now)
  }
}

/**
 * A23: which data keys of the keys topic (`account NUL pseudonym NUL YYYY-MM NUL generation`, A13) a
 * retention forgets: the account's keys of every received month that ended at or before `cutoff`. A month
 * the cutoff falls inside is kept whole, so a key never opens less than the rows the cutoff keeps.
 */
export function expiredMonthKeys(accountId: string, cutoff: number): (keyId: string) => boolean {
  const firstKept = new Date(cutoff).toISOString().slice(0, 7)
  const prefix = `${accountId}\u0000`
  return (keyId) => {
    if (!keyId.startsWith(prefix)) return false
    const month = keyId.split('\u0000')[2] ?? ''
    return /^\d{4}-\d{2}$/.test(month) && month < firstKept
  }
}
