// Node only: flush before the process goes. Written against globalThis.process so the same build
// loads in browsers, where it does nothing.
import type { TrackingClient } from './client.js'

interface NodeProcess {
  once(signal: string, fn: () => void): unknown
  removeListener(signal: string, fn: () => void): unknown
  exit(code?: number): never
}

/**
 * On the first of `signals` (default SIGTERM and SIGINT), shut the clients down (flushing what is
 * queued, up to `timeoutMs`) and then exit the process with `exitCode` (default 0), unless
 * `exit: false` (when your own handler ends the process after awaiting the returned promise).
 * Returns a function that removes the handlers.
 */
export function closeOnSignals(
  clients: TrackingClient | TrackingClient[],
  o: { signals?: string[]; timeoutMs?: number; exit?: boolean; exitCode?: number } = {},
): () => void {
  const proc = (globalThis as { process?: NodeProcess }).process
  if (!proc || typeof proc.once !== 'function') return () => undefined
  const list = Array.isArray(clients) ? clients : [clients]
  const signals = o.signals ?? ['SIGTERM', 'SIGINT']
  const handler = () => {
    remove()
    void Promise.all(list.map((c) => c.shutdown(o.timeoutMs))).finally(() => {
      if (o.exit !== false) proc.exit(o.exitCode ?? 0)
    })
  }
  const remove = () => signals.forEach((s) => proc.removeListener(s, handler))
  signals.forEach((s) => proc.once(s, handler))
  return remove
}
