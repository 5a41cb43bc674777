// The Refused requests query (U16, H57) on a small known data set, on both ClickHouse versions (U22):
// the rows the projector writes for two drains (migration 011), one of them projected twice (FINAL
// counts it once), counted by code per hour, the latest samples first, another account left out.
import t from 'tap'
import { onBothVersions } from '../../../../test/support/clickhouse-versions.js'
import { RefusedQueries, type RefusedSpec } from './refused-queries.js'

const at = (h: number, m = 0) => Date.UTC(2024, 4, 15, h, m)
const seconds = (ms: number) => Math.floor(ms / 1000)
/** One drain's rows: two codes counted in `minute`, one sample a second after it. */
const drain = (account_id: string, drained_at_ms: number, minute: number, count: number, body: string) => {
  const id = { account_id, instance_id: 'ingest-a', drained_at_ms }
  const live = { environment: 'live', code: 'VALIDATION_ERROR', endpoint: '/v1/event' }
  return {
    counts: [
      { ...id, ...live, minute: seconds(minute), count },
      { ...id, environment: 'test', code: 'INVALID_JSON', endpoint: '/v1/batch', minute: seconds(minute), count: 1 },
    ],
    samples: [{ ...id, ...live, at: seconds(minute + 1000), at_ms: minute + 1000, message: 'm', body, seq: 0 }],
  }
}

t.test('refused requests by code per hour and the latest samples', (t) =>
  onBothVersions(t, 'refused', async (t, db) => {
    const drains = [
      drain('acc_r', at(10, 1), at(10, 0), 3, '{"first":1}'),
      drain('acc_r', at(10, 1), at(10, 0), 3, '{"first":1}'), // projected twice
      drain('acc_r', at(11, 31), at(11, 30), 4, '{"second":2}'),
      drain('acc_x', at(11, 31), at(11, 30), 9, '{"other":3}'),
    ]
    // No sharding key on these tables: on the cluster they are written through the first server's local table.
    const table = (name: string) => `${db.database}.${name}${db.cluster ? '_local' : ''}`
    for (const d of drains) {
      await db.client.insert({ table: table('refusals_by_minute'), values: d.counts, format: 'JSONEachRow' })
      await db.client.insert({ table: table('refused_samples'), values: d.samples, format: 'JSONEachRow' })
    }
    const q = new RefusedQueries(db.client, db.database)
    const spec: RefusedSpec = { from: new Date(at(0)), to: new Date(at(23)), interval: 'hour', samples: 5 }
    const r = await q.refused('acc_r', spec)
    t.same(r.counts, [
      { time: '2024-05-15T10:00:00.000Z', code: 'INVALID_JSON', count: 1 },
      { time: '2024-05-15T10:00:00.000Z', code: 'VALIDATION_ERROR', count: 3 },
      { time: '2024-05-15T11:00:00.000Z', code: 'INVALID_JSON', count: 1 },
      { time: '2024-05-15T11:00:00.000Z', code: 'VALIDATION_ERROR', count: 4 },
    ])
    t.same(r.totals, [
      { code: 'VALIDATION_ERROR', count: 7 },
      { code: 'INVALID_JSON', count: 2 },
    ])
    t.same(
      r.samples.map((s) => [s.at, s.body]),
      [
        ['2024-05-15T11:30:01.000Z', '{"second":2}'],
        ['2024-05-15T10:00:01.000Z', '{"first":1}'],
      ],
    )
    const live = await q.refused('acc_r', { ...spec, environment: 'live', interval: 'minute', samples: 1 })
    t.same(
      live.counts.map((c) => [c.time, c.count]),
      [
        ['2024-05-15T10:00:00.000Z', 3],
        ['2024-05-15T11:30:00.000Z', 4],
      ],
    )
    t.equal(live.samples.length, 1)
  }),
)
