// Per-account retention (H60) behind a mutation that never ends (H85): as the erasure purge, the pass waits
// at most MUTATION_WAIT_MS, queues no delete behind the pending mutation, and fails naming it (the next
// pass tries again); once it is killed the pass deletes the expired rows.
import t from 'tap'
import { createTestDatabase, deleteMutations, queryRows, stuckMutation } from '../support/clickhouse-helpers.js'
import { eventRow } from '../support/event-rows.js'
import { createLogger } from '../../services/shared/src/log.js'
import { RetentionRules, retentionCutoff } from '../../services/shared/src/privacy/retention.js'
import { AccountRetention } from '../../services/projector/src/retention/account-retention.js'
import { MutationsNotDoneError } from '../../services/projector/src/clickhouse/mutation-places.js'

const ACCOUNT = 'acc_retention_stuck'
const NOW = Date.UTC(2024, 6, 15, 12)
const CUTOFF = retentionCutoff(1, NOW)!

t.test('a retention pass behind a mutation that never ends gives up, and deletes once it is killed', async (t) => {
  const { client, database } = await createTestDatabase({ prefix: 'retention_stuck', t })
  const rows = [CUTOFF - 86_400_000, CUTOFF + 86_400_000].map((ms, i) =>
    eventRow({ event_id: `e${i}`, account_id: ACCOUNT, event: 'opened', user_id: 'u', ms }),
  )
  await client.insert({ table: `${database}.events`, values: rows, format: 'JSONEachRow' })
  const stuck = await stuckMutation(client, database)

  const rules = new RetentionRules()
  rules.apply({ account_id: ACCOUNT, retention_months: 1 })
  const job = new AccountRetention(client, database, rules, createLogger('error'), {
    now: () => NOW,
    pollMs: 50,
    mutationWaitMs: 500,
  })
  const err = await job.runOnce().then(
    () => undefined,
    (e: unknown) => e,
  )
  t.ok(err instanceof MutationsNotDoneError, 'the pass gives up after its wait')
  t.same(
    (err as MutationsNotDoneError).pending.map((m) => [m.table, m.mutation_id]),
    [['events', stuck]],
    'naming the mutation',
  )
  t.equal(await deleteMutations(client, database), 0, 'no delete was queued behind it')

  await client.command({ query: `KILL MUTATION WHERE database = '${database}' AND mutation_id = '${stuck}'` })
  const run = await job.runOnce()
  t.same(
    run.removed.filter((r) => r.table === 'events').map((r) => r.rows),
    [1],
    'the next pass deletes the expired event',
  )
  t.same(
    await queryRows(client, `SELECT event_id FROM ${database}.events`),
    [{ event_id: 'e1' }],
    'the newer one stays',
  )
})
