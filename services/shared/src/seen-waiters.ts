// Read-your-writes for a process that writes a compacted topic and follows it: a change resolves
// once the process's own follower has applied it (or after a timeout: the write is acknowledged,
// and the snapshot catches up later). Used by AccountsAdmin and PrivacyAdmin.
export class SeenWaiters {
  private waiters: Array<{ check: () => boolean; resolve: () => void }> = []

  /** Call after each record the follower applies. */
  notify(): void {
    this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true))
  }

  /** Resolves once `check` holds after a record is applied, or after `timeoutMs`. */
  seen(check: () => boolean, timeoutMs = 5000): Promise<void> {
    if (check()) return Promise.resolve()
    return new Promise((resolve) => {
      const w = { check, resolve }
      this.waiters.push(w)
      setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w)
        resolve()
      }, timeoutMs).unref()
    })
  }
}
