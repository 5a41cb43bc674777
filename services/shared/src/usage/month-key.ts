// Month keys ('YYYY-MM', UTC, by time of receipt): the unit of the monthly quota (H5) and of the
// usage counters the projector keeps in ClickHouse.

/** `YYYY-MM` of the UTC month containing `now` (ms). */
export function monthKeyOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7)
}

/** Whether `s` is a month key: `YYYY-MM`, the month 01 to 12. */
export function isMonthKey(s: string): boolean {
  const m = /^\d{4}-(\d{2})$/.exec(s)
  return m !== null && Number(m[1]) >= 1 && Number(m[1]) <= 12
}

/** 'YYYY-MM' -> 'YYYY-MM-01', the month column's value. */
export function monthStart(monthKey: string): string {
  if (!isMonthKey(monthKey)) throw new RangeError(`month key must be YYYY-MM, got ${JSON.stringify(monthKey)}`)
  return `${monthKey}-01`
}
