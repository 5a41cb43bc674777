import t from 'tap'
import { refusalRows } from './refusal-rows.js'

const record = {
  account_id: 'acc_1',
  instance_id: 'ingest-a',
  drained_at: 1_700_000_065_432,
  counts: [
    { environment: 'live', code: 'VALIDATION_ERROR', endpoint: '/v1/track', minute: 1_700_000_040_000, count: 7 },
  ],
  samples: [
    {
      environment: 'live',
      code: 'VALIDATION_ERROR',
      endpoint: '/v1/track',
      at: 1_700_000_041_999,
      message: 'm1',
      body: '{}',
    },
    {
      environment: 'test',
      code: 'PAYLOAD_TOO_LARGE',
      endpoint: '/v1/batch',
      at: 1_700_000_042_000,
      message: 'm2',
      body: '',
    },
  ],
}

t.test('a record becomes count rows and sample rows, each with the record identity', async (t) => {
  const { counts, samples } = refusalRows(record)
  t.same(counts, [
    {
      account_id: 'acc_1',
      instance_id: 'ingest-a',
      drained_at_ms: 1_700_000_065_432,
      environment: 'live',
      code: 'VALIDATION_ERROR',
      endpoint: '/v1/track',
      minute: 1_700_000_040,
      count: 7,
    },
  ])
  t.same(
    samples.map((s) => [s.seq, s.at, s.at_ms, s.code, s.drained_at_ms]),
    [
      [0, 1_700_000_041, 1_700_000_041_999, 'VALIDATION_ERROR', 1_700_000_065_432],
      [1, 1_700_000_042, 1_700_000_042_000, 'PAYLOAD_TOO_LARGE', 1_700_000_065_432],
    ],
  )
})

t.test('the same record maps to the same rows (a replay collapses, A5)', async (t) => {
  t.same(refusalRows(record), refusalRows(structuredClone(record)))
})
