// The live streams this dashboard instance proxies, by session (U4). A session may hold a few
// streams at a time (LIVE_MAX_STREAMS_PER_SESSION; the projector caps accounts and the total, U3),
// and a stream lives only as long as its session: sign-out, signing out everywhere, a password
// change, a disabled account or the session's expiry end it. Revocations are records on the accounts
// topic, so another instance's sign-out reaches this one's follower and the next sweep; the routes
// that end sessions here sweep at once.
import type { SessionPayload } from '../auth/index.js'

export interface LiveStream {
  session: SessionPayload
  /** Ends the stream; nothing more is sent to the browser. */
  end(): void
}

export interface LiveStreamsOptions {
  perSession: number
  /** Whether the session is still signed in (the account record as this instance follows it). */
  stillSignedIn: (s: SessionPayload) => boolean
  /** How often open streams' sessions are checked. */
  sweepMs: number
}

export class LiveStreams {
  private readonly bySession = new Map<string, Set<LiveStream>>()
  private timer?: NodeJS.Timeout

  constructor(private readonly opts: LiveStreamsOptions) {}

  /** Registers a stream; its release function, or undefined when the session holds its cap already. */
  add(stream: LiveStream): (() => void) | undefined {
    const sid = stream.session.sid
    const set = this.bySession.get(sid) ?? new Set<LiveStream>()
    if (set.size >= this.opts.perSession) return undefined
    this.bySession.set(sid, set)
    set.add(stream)
    this.timer ??= setInterval(() => this.sweep(), this.opts.sweepMs).unref()
    return () => this.remove(stream)
  }

  private remove(stream: LiveStream) {
    const set = this.bySession.get(stream.session.sid)
    if (!set?.delete(stream)) return
    if (set.size === 0) this.bySession.delete(stream.session.sid)
    if (this.bySession.size === 0) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  get open(): number {
    let n = 0
    for (const set of this.bySession.values()) n += set.size
    return n
  }

  signedIn(s: SessionPayload): boolean {
    return this.opts.stillSignedIn(s)
  }

  /** Ends every stream whose session is no longer signed in. */
  sweep(): void {
    for (const set of [...this.bySession.values()]) {
      for (const s of [...set]) {
        if (this.opts.stillSignedIn(s.session)) continue
        this.remove(s)
        s.end()
      }
    }
  }

  /** Ends every stream (the dashboard is closing). */
  endAll(): void {
    for (const set of [...this.bySession.values()]) for (const s of [...set]) this.remove(s), s.end()
  }
}
