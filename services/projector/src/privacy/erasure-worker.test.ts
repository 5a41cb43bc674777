import t from 'tap'
import type { ErasureRecord } from '../../../../schemas/records.js'
import { pendingSteps } from './erasure-worker.js'

const request = (steps: Partial<ErasureRecord> = {}): ErasureRecord => ({
  erasure_id: 'e',
  account_id: 'a',
  user_id: 'u',
  requested_by: 'test',
  requested_at: 1,
  suppress: false,
  projections_purged_at: null,
  history_unreadable_at: null,
  disk_gone_at: null,
  updated_at: 1,
  ...steps,
})

t.test('requests pending by step: each step not done, the Kafka steps only with keys', async (t) => {
  const requests = [
    request(),
    request({ projections_purged_at: 2 }),
    request({ projections_purged_at: 2, history_unreadable_at: 3 }),
    request({ projections_purged_at: 2, history_unreadable_at: 3, disk_gone_at: 4 }),
  ]
  t.same(pendingSteps(requests, true), { projections_purged: 1, history_unreadable: 2, disk_gone: 1 })
  t.same(pendingSteps(requests, false), { projections_purged: 1, history_unreadable: 0, disk_gone: 0 })
  t.same(pendingSteps([], true), { projections_purged: 0, history_unreadable: 0, disk_gone: 0 })
})
