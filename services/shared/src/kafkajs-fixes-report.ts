// How a service says whether the kafkajs replacements are in place (kafkajs-fixes.ts): a metric and a
// line at start, the same in ingest and the projector. A self-test that failed (H38) is an alarm: the
// replacements no longer give kafkajs's bytes on this machine, kafkajs runs unchanged (slower) until
// someone looks.
import { Gauge, type Registry } from 'prom-client'
import type { Logger } from './log.js'
import { kafkajsFixesStatus } from './kafkajs-fixes.js'

/** `<prefix>_kafkajs_fixes_applied` and `<prefix>_kafkajs_fixes_self_test_failed` on `registry`. */
export function kafkajsFixesGauges(registry: Registry, prefix: string): void {
  new Gauge({
    name: `${prefix}_kafkajs_fixes_applied`,
    help: '1 when the cheaper kafkajs record encoding is in place (services/shared/src/kafkajs-fixes.ts); 0 means kafkajs runs unchanged, slower.',
    registers: [registry],
    collect() { this.set(kafkajsFixesStatus().applied ? 1 : 0) },
  })
  new Gauge({
    name: `${prefix}_kafkajs_fixes_self_test_failed`,
    help: 'Replacements of kafkajs modules whose output differed from kafkajs\'s on the start-up self-test, so none were installed (H38); 0 when all agree.',
    registers: [registry],
    collect() { this.set(kafkajsFixesStatus().selfTestFailed?.length ?? 0) },
  })
}

/** One line at start when kafkajs runs unchanged: a warning when the self-test refused the replacements. */
export function logKafkajsFixes(log: Logger, slower: string): void {
  const fixes = kafkajsFixesStatus()
  if (fixes.applied) return
  if (fixes.selfTestFailed) log.warn(`kafkajs replacements refused by their self-test; kafkajs runs unchanged (${slower})`, { reason: fixes.reason, replacements: fixes.selfTestFailed })
  else log.info(`kafkajs runs unchanged (${slower})`, { reason: fixes.reason })
}
