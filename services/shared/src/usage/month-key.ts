// Month keys ('YYYY-MM', UTC, by time of receipt): the unit of the monthly quota (H5) and of the
// usage counters the projector keeps in ClickHouse.

/** `YYYY-MM` of the UTC month containing `now` (ms). */
export function monthKeyOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7)
}

/** 'YYYY-MM' -> 'YYYY-MM-01', the month column's value. */
export function monthStart(monthKey: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(monthKey)
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) {
    throw new RangeError(`month key must be YYYY-MM, got ${JSON.stringify(monthKey)}`)
  }
  return `${m[1]}-${m[2]}-01`
}
