// A1, A5: replaying a topic range into the live tables twice leaves exact counts
// unchanged; replaying into a fresh database gives the same counts; swapping the fresh tables in
// keeps the live projector and the materialized views (users, usage) working.
import t from 'tap'
import { startServices, waitUntil, type TestServices } from '../support/harness.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { runReplayCommand, type ReplayCommand } from '../../services/projector/src/replay/index.js'
import { Metrics } from '../../services/projector/src/consume/metrics.js'

const N = 40

async function counts(s: TestServices, db: string, accountId: string) {
  const [ev] = await s.query<{ n: string; ids: string }>(
    `SELECT count() AS n, uniqExact(event_id) AS ids FROM ${db}.events FINAL WHERE account_id = '${accountId}'`,
  )
  const [usage] = await s.query<{ events: string }>(
    `SELECT uniqExactMerge(events_state) AS events FROM ${db}.usage_monthly_sharded WHERE account_id = '${accountId}' AND environment = 'live'`,
  )
  const [users] = await s.query<{ n: string }>(
    `SELECT count() AS n FROM (SELECT user_id FROM ${db}.users WHERE account_id = '${accountId}' GROUP BY user_id)`,
  )
  const [traits] = await s.query<{ n: string }>(
    `SELECT count() AS n FROM ${db}.user_traits FINAL WHERE account_id = '${accountId}'`,
  )
  return {
    events: Number(ev!.n),
    ids: Number(ev!.ids),
    usage: Number(usage!.events),
    users: Number(users!.n),
    traits: Number(traits!.n),
  }
}

t.test('a double replay into the live tables and a replay into a fresh database give exact counts', async (t) => {
  const s = await startServices(t)
  const { key, accountId } = await s.createKey({ type: 'live' })
  const events = Array.from({ length: N }, (_, i) => ({
    type: 'event',
    event: 'page_viewed',
    user: { id: `u${i % 5}`, traits: { n: i } },
    properties: { i },
  }))
  const res = await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })
  t.equal(res.status, 200)
  t.equal(res.body.events_processed ?? res.body.data?.events_processed, N)
  await s.waitForRows(`SELECT event_id FROM ${s.database}.events FINAL WHERE account_id = '${accountId}'`, N)
  // Traits, events and identifies are separate inserts (partition-groups.ts), and usage and users are filled
  // by materialized views, whose parts ClickHouse commits after the events part (and one after the other):
  // wait for each of them.
  await waitUntil(
    async () => {
      const c = await counts(s, s.database, accountId)
      return c.usage === N && c.users === 5 && c.traits === 5
    },
    15_000,
    'usage, users and traits to be projected',
  )
  const before = await counts(s, s.database, accountId)
  t.same(before, { events: N, ids: N, usage: N, users: 5, traits: 5 })

  const cfg = loadProjectorConfig(s.env)
  const io = { log: createLogger('error') }
  const cmd: ReplayCommand = {
    topics: ['events'],
    from: { kind: 'beginning' },
    target: 'live',
    swap: false,
    dlq: true,
    json: false,
  }
  const progress: number[] = []
  for (const round of [1, 2]) {
    const report = await runReplayCommand(cfg, cmd, { ...io, onProgress: (p) => progress.push(p.remaining) })
    t.equal(report.summary.records, N, `replay ${round} read every record once`)
    t.equal(report.summary.events, N)
    t.equal(report.summary.deadLettered, 0)
    t.same(report.summary.byTopic, { [s.topics.events]: N })
    t.same(await counts(s, s.database, accountId), before, `exact counts unchanged after replay ${round}`)
  }
  t.equal(progress.at(-1), 0, 'the last progress report has no remaining lag')
  const [raw] = await s.query<{ n: string }>(
    `SELECT count() AS n FROM ${s.database}.events WHERE account_id = '${accountId}'`,
  )
  t.ok(Number(raw!.n) >= N, 'raw rows may hold duplicates until merges; exact reads do not')

  // One partition's offset range: only that partition's records are read.
  const marks = await (async () => {
    const a = s.kafka.admin()
    await a.connect()
    try {
      return await a.fetchTopicOffsets(s.topics.events)
    } finally {
      await a.disconnect()
    }
  })()
  const busiest = marks.reduce((a, b) => (Number(b.high) > Number(a.high) ? b : a))
  const ranged = await runReplayCommand(
    cfg,
    { ...cmd, from: { kind: 'offsets', partition: busiest.partition, from: 0n, to: BigInt(busiest.high) - 1n } },
    io,
  )
  t.same(
    ranged.ranges.filter((r) => r.end > r.start).map((r) => r.partition),
    [busiest.partition],
    'an offset range reads that partition only',
  )
  t.ok(
    ranged.summary.records > 0 && ranged.summary.records <= N,
    'and the records in it (offsets also count transaction markers)',
  )
  t.same(await counts(s, s.database, accountId), before)

  // Into a fresh database.
  const fresh = `${s.database}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  // With metrics (the CLI's --metrics-port): progress, rows and inserts are counted.
  const metrics = new Metrics({ processMetrics: false })
  const report = await runReplayCommand(
    cfg,
    { ...cmd, topics: ['events', 'identifies'], target: 'fresh', database: fresh },
    { ...io, metrics },
  )
  t.equal(report.database, fresh)
  const text = await metrics.render()
  const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1])
  t.equal(value('projector_replay_offsets_remaining'), 0, 'replay progress: nothing left')
  t.equal(value('projector_replay_records_done'), report.summary.records, 'replay progress: every record done')
  t.equal(value('projector_rows_inserted_total{kind="event"}'), report.summary.events, 'rows inserted')
  t.ok(value('projector_insert_seconds_count') >= 1, 'inserts timed')
  t.same(await counts(s, fresh, accountId), before, 'a fresh database gets the same exact counts')
  const [migs] = await s.query<{ n: string }>(`SELECT count() AS n FROM ${fresh}.schema_migrations`)
  t.ok(Number(migs!.n) >= 5, 'the fresh database was built by the migrations')
})

t.test('a fresh replay swapped in keeps the live projector and the materialized views working', async (t) => {
  const s = await startServices(t)
  const { key, accountId } = await s.createKey({ type: 'live' })
  const events = Array.from({ length: 10 }, (_, i) => ({ type: 'event', event: 'signed_up', user: { id: `u${i}` } }))
  t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })).status, 200)
  await waitUntil(
    async () => {
      const c = await counts(s, s.database, accountId)
      return c.usage === 10 && c.users === 10
    },
    15_000,
    'the events to be projected (usage and users: views, committed after the events)',
  )
  // Rows only the old live tables have: after the swap they are gone from the live database.
  await s.ch.insert({
    table: `${s.database}.events`,
    values: [
      {
        event_id: 'not-in-the-log',
        account_id: accountId,
        environment: 'live',
        event: 'ghost',
        user_id: 'ghost',
        timestamp: '2025-01-01 00:00:00',
        received_at: '2025-01-01 00:00:00',
      },
    ],
    format: 'JSONEachRow',
  })

  const fresh = `${s.database}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const cfg = loadProjectorConfig(s.env)
  const report = await runReplayCommand(
    cfg,
    {
      topics: ['events', 'identifies'],
      from: { kind: 'beginning' },
      target: 'fresh',
      database: fresh,
      swap: true,
      dlq: true,
      json: false,
    },
    { log: createLogger('error') },
  )
  t.ok(report.swap, 'swapped')
  t.same(report.swap!.tables, [
    'event_counts_dirty',
    'event_counts_hourly',
    'events',
    'groups',
    'identifies',
    'identity_links',
    'person_counts_daily',
    'person_weeks',
    'property_counts_daily',
    'property_counts_hourly',
    'retry_ids',
    'usage_monthly',
    'usage_monthly_sharded',
    'user_traits',
    'users',
  ])
  t.ok(report.catchUp, 'a catch-up replay ran after the swap')
  const [ghost] = await s.query<{ n: string }>(
    `SELECT count() AS n FROM ${s.database}.events WHERE event_id = 'not-in-the-log'`,
  )
  t.equal(Number(ghost!.n), 0, 'the live database now holds the replayed tables')
  const [old] = await s.query<{ n: string }>(
    `SELECT count() AS n FROM ${fresh}.events WHERE event_id = 'not-in-the-log'`,
  )
  t.equal(Number(old!.n), 1, 'the previous tables are kept in the other database')
  t.same(await counts(s, s.database, accountId), { events: 10, ids: 10, usage: 10, users: 10, traits: 0 })
  const oldBefore = await counts(s, fresh, accountId)
  t.equal(oldBefore.events, 11, 'the previous tables: the 10 events and the row not in the log')

  // The live projector goes on writing, and the recreated materialized views feed the swapped-in tables.
  t.equal(
    (await s.post('/v1/event', { event: 'after_swap', user: { id: 'late_user', email: 'late@example.com' } }, { key }))
      .status,
    200,
  )
  await waitUntil(
    async () => (await counts(s, s.database, accountId)).usage === 11,
    15_000,
    'the new event to reach usage in the swapped-in tables',
  )
  const users = await s.waitForRows<{ email: string }>(
    `SELECT email FROM ${s.database}.users_view WHERE account_id = '${accountId}' AND user_id = 'late_user'`,
  )
  t.equal(users[0]!.email, 'late@example.com')
  t.same(await counts(s, fresh, accountId), oldBefore, 'the previous tables no longer receive rows')
  // person_weeks (U23) is swapped and fed like the others: the replayed persons and the new one, no ghost.
  const weeks = await s.waitForRows<{ user_id: string }>(
    `SELECT DISTINCT user_id FROM ${s.database}.person_weeks WHERE account_id = '${accountId}' AND event = '' ORDER BY user_id`,
    11,
  )
  t.same(
    weeks.map((w) => w.user_id),
    [...Array.from({ length: 10 }, (_, i) => `u${i}`), 'late_user'].sort(),
  )
})

t.test(
  'a fresh replay keeps the first write of a retried message_id when the retry is in a later insert (H16, with the id filter)',
  async (t) => {
    const s = await startServices(t)
    const { key, accountId } = await s.createKey({ type: 'live' })
    const day = 86_400_000
    const first = new Date(Date.now() - 3 * day).toISOString()
    const retry = new Date(Date.now() - 2 * day).toISOString()
    // Sent one by one, so each is its own Kafka record batch: with 1 KiB fetches and inserts of one
    // row, the original and its retry (same message_id, another timestamp) land in different inserts.
    const bodies = [
      { event: 'ordered', user: { id: 'rita' }, message_id: 'm-retried', timestamp: first },
      ...Array.from({ length: 3 }, (_, i) => ({
        event: 'page_viewed',
        user: { id: 'rita' },
        message_id: `m-filler-${i}`,
      })),
      { event: 'ordered', user: { id: 'rita' }, message_id: 'm-retried', timestamp: retry },
    ]
    for (const b of bodies) t.equal((await s.post('/v1/event', b, { key })).status, 200)
    await s.waitForRows(`SELECT event_id FROM ${s.database}.events FINAL WHERE account_id = '${accountId}'`, 4)

    const fresh = `${s.database}_retry`
    t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
    const cfg = { ...loadProjectorConfig(s.env), replayMaxRows: 1, replayFetchPartitionBytes: 1024 }
    const report = await runReplayCommand(
      cfg,
      {
        topics: ['events'],
        from: { kind: 'beginning' },
        target: 'fresh',
        database: fresh,
        swap: false,
        dlq: true,
        json: false,
      },
      { log: createLogger('error') },
    )
    t.equal(report.summary.records, 5)
    const rows = await s.query<{ timestamp: string }>(
      `SELECT toString(timestamp) AS timestamp FROM ${fresh}.events FINAL WHERE account_id = '${accountId}' AND message_id = 'm-retried'`,
    )
    t.equal(rows.length, 1, 'one row for the retried message_id')
    t.equal(rows[0]!.timestamp, first.slice(0, 19).replace('T', ' '), 'the first write wins')
  },
)

t.test(
  "a replay into the live tables that starts after a message_id's first write leaves out its retry (H16, with the stored ids read first)",
  async (t) => {
    const s = await startServices(t)
    const { key, accountId } = await s.createKey({ type: 'live' })
    const day = 86_400_000
    const first = new Date(Date.now() - 3 * day).toISOString()
    const retry = new Date(Date.now() - 2 * day).toISOString()
    // One user, so one record key and one partition, in this order: the first write, its retry (same
    // message_id, another timestamp: the live projector drops it), and a marker that tells when the
    // projector is past the retry.
    t.equal(
      (
        await s.post(
          '/v1/event',
          { event: 'ordered', user: { id: 'rita' }, message_id: 'm-retried', timestamp: first },
          { key },
        )
      ).status,
      200,
    )
    t.equal(
      (
        await s.post(
          '/v1/event',
          { event: 'ordered', user: { id: 'rita' }, message_id: 'm-retried', timestamp: retry },
          { key },
        )
      ).status,
      200,
    )
    t.equal(
      (await s.post('/v1/event', { event: 'marker', user: { id: 'rita' }, message_id: 'm-marker' }, { key })).status,
      200,
    )
    await s.waitForRows(`SELECT event_id FROM ${s.database}.events FINAL WHERE account_id = '${accountId}'`, 2)
    const rowsOf = () =>
      s.query<{ timestamp: string }>(
        `SELECT toString(timestamp) AS timestamp FROM ${s.database}.events FINAL WHERE account_id = '${accountId}' AND message_id = 'm-retried'`,
      )
    t.equal((await rowsOf()).length, 1, 'the live projector stored the first write only')

    const admin = s.kafka.admin()
    await admin.connect()
    const marks = await admin.fetchTopicOffsets(s.topics.events).finally(() => admin.disconnect())
    const part = marks.find((m) => Number(m.high) > 0)!
    t.equal(Number(part.high), 3, 'the three records share a partition')
    // From the retry on: the replay never sees the first write, so only the stored ids can tell it
    // that the retry's id needs the lookup.
    const notes: string[] = []
    const cfg = loadProjectorConfig(s.env)
    const report = await runReplayCommand(
      cfg,
      {
        topics: ['events'],
        from: { kind: 'offsets', partition: part.partition, from: 1n, to: 2n },
        target: 'live',
        swap: false,
        dlq: true,
        json: false,
      },
      { log: createLogger('error'), note: (l) => notes.push(l) },
    )
    t.equal(report.summary.records, 2)
    t.match(notes.join('\n'), /2 stored ids read in/, 'the stored ids (the first write and the marker) were read')
    t.match(
      notes.join('\n'),
      /recounting the replayed hours[\s\S]*\n\d+ hours recounted in \d+\.\ds$/,
      'the recount after the replay says it starts and when it is done, last',
    )
    const rows = await rowsOf()
    t.equal(rows.length, 1, 'still one row for the retried message_id')
    t.equal(rows[0]!.timestamp, first.slice(0, 19).replace('T', ' '), 'the first write wins')
  },
)
