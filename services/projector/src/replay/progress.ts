// Progress and summary lines of a replay, kept pure so they can be tested.
export interface ReplayProgress {
  /** Records read so far (written or dead-lettered). */
  done: number
  /** Offsets left before every partition reaches its end offset. */
  remaining: number
  elapsedMs: number
  /** Records per second over the last interval. */
  rate: number
}

export interface ReplaySummary {
  records: number
  byTopic: Record<string, number>
  events: number
  identifies: number
  deadLettered: number
  durationMs: number
  /** Records per second over the whole run. */
  rate: number
  /** Where each partition stopped (`topic/partition` -> next offset): start of a catch-up. */
  ends: Record<string, string>
}

const n = (x: number) => Math.round(x).toLocaleString('en-US')

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?'
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}

export function formatProgress(p: ReplayProgress): string {
  const eta = p.remaining === 0 ? '0s' : p.rate > 0 ? formatDuration((p.remaining / p.rate) * 1000) : '?'
  return `replay ${formatDuration(p.elapsedMs).padStart(6)}  ${n(p.done)} done  ${n(p.rate)} rec/s  lag ${n(p.remaining)}  ETA ${eta}`
}

export function formatSummary(s: ReplaySummary, label = 'replay'): string {
  const topics = Object.entries(s.byTopic).map(([t, c]) => `${t}=${n(c)}`).join(', ') || 'none'
  return [
    `${label} done: ${n(s.records)} records in ${(s.durationMs / 1000).toFixed(1)}s (${n(s.rate)} rec/s)`,
    `  per topic: ${topics}`,
    `  written: ${n(s.events)} events, ${n(s.identifies)} identifies; dead-lettered: ${n(s.deadLettered)}`,
  ].join('\n')
}
