import t from 'tap'
import { usageStubInsert } from './usage-stubs.js'

t.test('stubs are grouped by account, month and environment, ids and names escaped', async (t) => {
  const nov = Date.UTC(2026, 10, 26)
  const dec = Date.UTC(2026, 11, 1)
  const q = usageStubInsert('db', [
    { account_id: "o'neil", environment: 'live', event_id: 'a', received_at: nov },
    { account_id: "o'neil", environment: 'live', event_id: 'b', received_at: nov + 1 },
    { account_id: "o'neil", environment: 'test', event_id: 'c', received_at: nov },
    { account_id: "o'neil", environment: 'live', event_id: 'd', received_at: dec },
  ])
  t.match(
    q,
    /^INSERT INTO db\.usage_monthly_sharded \(account_id, month, environment, shard, events_state, emails_state\) SELECT /,
  )
  t.equal(q.split(' UNION ALL ').length, 3, 'one SELECT per (account, month, environment)')
  t.match(
    q,
    /'o\\'neil', toDate\('2026-11-01'\), CAST\('live' AS .*toUInt16\(cityHash64\(id\) % 256\) AS shard, uniqExactState\(id\).* FROM \(SELECT arrayJoin\(\['a', ?'b'\]\) AS id\) GROUP BY shard/,
  )
  t.match(q, /toDate\('2026-12-01'\).*\['d'\]/)
})
