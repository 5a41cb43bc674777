// The one parser of a page's named period (Trends, U13; Retention, U18 of docs/design.md): a name
// from the page's allowed lengths, or custom (from/to read by params.ts's range()), as a from/to.
import { validation } from '../errors.js'

/** The allowed period names and their length in milliseconds, in the order the error names them. */
export type PeriodLengths = Readonly<Record<string, number>>

export function periodRange(
  period: string,
  lengths: PeriodLengths,
  now: number,
  custom: () => { from: Date; to: Date },
): { from: Date; to: Date } {
  if (period === 'custom') return custom()
  if (Object.hasOwn(lengths, period)) return { from: new Date(now - lengths[period]), to: new Date(now) }
  throw validation(`period must be ${Object.keys(lengths).join(', ')} or custom`, { field: 'period' })
}
