// H5, H33: the month's usage comes from the projector's counters, refreshed in the background and
// reconciled with the counts (H34: raised to what is stored, lowered to stored plus in flight).
import type { Logger } from '../../../shared/src/log.js'
import { monthlyUsage } from '../../../shared/src/usage/usage-query.js'
import type { Limits } from './limits.js'
import { monthKeyOf } from './monthly-quota.js'

export interface UsageRefresh {
  /** One read now; start() uses it, best effort. */
  refresh(): Promise<void>
  /** Reads again every `everyMs` until stop(); a failed read leaves enforcement on the local counts. */
  schedule(): void
  stop(): void
}

export function usageRefresh(
  ch: Parameters<typeof monthlyUsage>[0],
  database: string,
  limits: Pick<Limits, 'reconcile'>,
  everyMs: number,
  log: Logger,
): UsageRefresh {
  let timer: NodeJS.Timeout | undefined
  const refresh = async () => {
    const now = Date.now()
    const month = monthKeyOf(now)
    await limits.reconcile(month, await monthlyUsage(ch, database, month), now)
  }
  const schedule = () => {
    timer = setTimeout(() => {
      refresh()
        .catch((err) => log.warn('usage refresh failed; enforcing from local counts', { err }))
        .finally(schedule)
    }, everyMs)
    timer.unref()
  }
  return {
    refresh,
    schedule,
    stop: () => {
      if (timer) clearTimeout(timer)
    },
  }
}
