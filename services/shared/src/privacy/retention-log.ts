// The accounts' retentions (H60) followed from the accounts topic, where each account record carries
// its retention_months: the projector's retention job follows them, a replay reads them once.
import type { Kafka } from '../kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../log.js'
import { followAccounts, type AccountsFollower } from '../accounts/accounts-log.js'
import { RetentionRules } from './retention.js'

/** Follows the accounts topic into `rules` (ready once caught up). */
export function followRetention(
  kafka: Kafka,
  codec: Codec,
  topic: string,
  rules: RetentionRules,
  log: Logger,
  groupPrefix: string,
  signal?: AbortSignal,
): Promise<AccountsFollower> {
  return followAccounts(kafka, codec, topic, (e) => e.kind === 'Account' && rules.apply(e.value), log, {
    groupPrefix,
    kinds: ['Account'],
    signal,
  })
}

/** The retentions as the accounts topic holds them now, read to its end. */
export async function loadRetention(kafka: Kafka, codec: Codec, topic: string, log: Logger): Promise<RetentionRules> {
  const rules = new RetentionRules()
  const follower = await followRetention(kafka, codec, topic, rules, log, 'replay-retention')
  try {
    await follower.ready
  } finally {
    await follower.stop()
  }
  return rules
}
