// Progress and summary lines of a replay, kept pure so they can be tested.
export interface ReplayProgress {
  /** Records written to ClickHouse or dead-lettered so far. */
  done: number
  /** Offsets left before every partition reaches its end offset. */
  remaining: number
  elapsedMs: number
  /** Records per second over the last few seconds (see progressOf). */
  rate: number
  /** Time left at the recent pace; null while nothing has moved yet. Absent: remaining / rate. */
  etaMs?: number | null
}

/** What the replayer knows at one instant. */
export interface ProgressSample {
  atMs: number
  /** Records written or dead-lettered so far. */
  done: number
  /** Offsets left (records and transaction markers). */
  remaining: number
}

/** Recent pace measured over this much time, so a single slow insert does not make the rate 0 or the ETA jump. */
export const PROGRESS_WINDOW_MS = 10_000

/**
 * Progress from the samples taken so far (oldest first; the first is the start: done 0, all
 * offsets remaining). The rate is records per second since the oldest sample still inside the
 * window; the ETA divides the remaining offsets by how fast offsets fell over the same span, so
 * transaction markers (offsets without records) do not skew it.
 */
export function progressOf(samples: ProgressSample[], windowMs = PROGRESS_WINDOW_MS): ReplayProgress {
  const first = samples[0]
  const last = samples[samples.length - 1]
  if (!first || !last) return { done: 0, remaining: 0, elapsedMs: 0, rate: 0, etaMs: null }
  let base = first
  for (const s of samples) {
    if (last.atMs - s.atMs <= windowMs) break
    base = s
  }
  const spanMs = last.atMs - base.atMs
  const rate = spanMs > 0 ? ((last.done - base.done) * 1000) / spanMs : 0
  const offsetsPerMs = spanMs > 0 ? (base.remaining - last.remaining) / spanMs : 0
  const etaMs = last.remaining === 0 ? 0 : offsetsPerMs > 0 ? last.remaining / offsetsPerMs : null
  return { done: last.done, remaining: last.remaining, elapsedMs: last.atMs - first.atMs, rate, etaMs }
}

/** Drops samples the window no longer needs (keeps the first, the start, and one just outside the window). */
export function trimSamples(samples: ProgressSample[], windowMs = PROGRESS_WINDOW_MS): void {
  const last = samples[samples.length - 1]
  if (!last) return
  let cut = 1
  while (cut + 1 < samples.length && last.atMs - samples[cut + 1]!.atMs > windowMs) cut++
  if (cut > 1) samples.splice(1, cut - 1)
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
  const etaMs = p.etaMs !== undefined ? p.etaMs : p.rate > 0 ? (p.remaining / p.rate) * 1000 : null
  const eta = p.remaining === 0 ? '0s' : etaMs === null ? '?' : formatDuration(etaMs)
  return `replay ${formatDuration(p.elapsedMs).padStart(6)}  ${n(p.done)} done  ${n(p.rate)} rec/s  lag ${n(p.remaining)}  ETA ${eta}`
}

export function formatSummary(s: ReplaySummary, label = 'replay'): string {
  const topics =
    Object.entries(s.byTopic)
      .map(([t, c]) => `${t}=${n(c)}`)
      .join(', ') || 'none'
  return [
    `${label} done: ${n(s.records)} records in ${(s.durationMs / 1000).toFixed(1)}s (${n(s.rate)} rec/s)`,
    `  per topic: ${topics}`,
    `  written: ${n(s.events)} events, ${n(s.identifies)} identifies; dead-lettered: ${n(s.deadLettered)}`,
  ].join('\n')
}
