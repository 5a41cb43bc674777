import t from 'tap'
import { readinessOf } from './readiness.js'

const healthy = { health: () => ({ ready: true, producersUp: 5, queuedRecords: 0 }) }

t.test('ready only when Kafka takes records, the key table is current and the instance is not draining', async (t) => {
  t.equal(readinessOf({ appender: healthy, accounts: { silenceMs: () => 300 }, draining: () => false }).ready, true)

  const noKafka = readinessOf({
    appender: {
      health: () => ({ ready: false, reason: 'the last append to Kafka failed', producersUp: 4, queuedRecords: 12 }),
    },
    accounts: { silenceMs: () => 300 },
    draining: () => false,
  })
  t.equal(noKafka.ready, false)
  t.same(noKafka.checks.kafka, { ok: false, detail: 'the last append to Kafka failed' })

  const stale = readinessOf({ appender: healthy, accounts: { silenceMs: () => 20_000 }, draining: () => false })
  t.equal(stale.ready, false, 'a follower silent for 20 s may have missed a revocation')
  t.equal(stale.checks.accounts.ok, false)

  t.equal(
    readinessOf({ appender: healthy, accounts: { silenceMs: () => 0 }, draining: () => true }).ready,
    false,
    'draining',
  )
})
