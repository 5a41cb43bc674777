// What "ready" means for an ingest instance (H36): a request sent here now could be accepted.
// That needs a producer that can deliver to Kafka and a key table that is still hearing from the
// accounts topic (a silent follower may be missing a key revocation), and an instance that is not
// draining. Liveness is separate and needs none of these: restarting a process does not bring
// Kafka back.
import type { ReadinessReport } from '../../../shared/src/http/index.js'
import type { AppenderHealth } from '../kafka/record-appender.js'

/** A key table that has not heard from Kafka for this long may be missing a revocation. */
export const ACCOUNTS_STALE_MS = 15_000

/** The shared health shape's report (H62). */
export type Readiness = ReadinessReport

export interface ReadinessSources {
  appender: { health(): AppenderHealth }
  accounts: { silenceMs(): number }
  draining: () => boolean
  /** With REDIS_URL: where limits are enforced now. Never makes the instance unready: with Redis
   *  down every instance would be, and a load balancer would drop them all (docs/scaling.md). */
  limits?: { describe(): string }
}

export function readinessOf(src: ReadinessSources, staleMs = ACCOUNTS_STALE_MS): Readiness {
  const a = src.appender.health()
  const silence = src.accounts.silenceMs()
  const draining = src.draining()
  const checks = {
    kafka: {
      ok: a.ready,
      detail: a.ready ? `${a.producersUp} producers connected, ${a.queuedRecords} records queued` : a.reason,
    },
    accounts: {
      ok: silence < staleMs,
      detail: `last heard from the accounts topic ${(silence / 1000).toFixed(1)} s ago`,
    },
    draining: { ok: !draining, detail: draining ? 'shutting down' : undefined },
    limits: { ok: true, detail: src.limits?.describe() ?? 'per instance, in memory (REDIS_URL not set)' },
  }
  return { ready: Object.values(checks).every((c) => c.ok), checks }
}
