// A16 against the real stack: with PRIVACY_ENCRYPT on, the live projector and `npm run replay` (into a
// fresh database and into the live tables) open sealed records: the rows are those of the same requests
// sent with encryption off, user ids in clear; a person whose keys are tombstoned is absent from a replay
// and their events still count in usage_monthly.
import t, { type Test } from 'tap'
import { startServices, type TestServices } from '../support/harness.js'
import { readTopic } from '../support/read-topic.js'
import { billedEvents, waitForBilled } from '../support/usage.js'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { runReplayCommand } from '../../services/projector/src/replay/index.js'
import { accountSecretOf, pseudonymOf } from '../../services/shared/src/privacy/crypto/index.js'

const people = ['ada', 'erased', 'keeper']

/** The same requests for each run: two events and an identify a person. */
async function send(t: Test, s: TestServices, key: string) {
  for (const id of people) {
    const user = { id, email: `${id}@example.test`, traits: { name: `${id} name` } }
    t.equal((await s.post('/v1/event', { event: 'opened', user, properties: { who: id } }, { key })).status, 200)
    const events = [
      { type: 'event', event: 'paid', user, properties: { amount: 3 } },
      { type: 'identify', user, traits: { plan: `${id} plan` } },
    ]
    t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })).status, 200)
  }
}

/** What a user of the tables sees, without the ids ingest mints (event_id differs between runs). */
const rows = (s: TestServices, db: string) =>
  s.query(
    `SELECT * FROM (SELECT user_id, event, user_email, properties FROM ${db}.events FINAL
     UNION ALL SELECT user_id, 'identify', email, traits FROM ${db}.identifies FINAL) ORDER BY user_id, event, properties`,
  )

async function projected(t: Test, encrypt: boolean) {
  const s = await startServices(t, { env: { PRIVACY_ENCRYPT: String(encrypt) } })
  const { key, accountId } = await s.createKey({ type: 'live' })
  await send(t, s, key)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events`, 6)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.identifies`, 3)
  await waitForBilled(s, s.database, accountId, 6, 'usage counts the six events')
  return { s, accountId, rows: await rows(s, s.database) }
}

t.test('sealed topics project and replay to the rows of clear ones; a tombstoned key leaves counts only', async (t) => {
  const clear = await projected(t, false)
  const { s, accountId, rows: live } = await projected(t, true)
  t.same(live, clear.rows, 'the live projector opens sealed records: the same rows as a clear run, ids in clear')
  // The erased person's keys tombstoned, as an erasure does (A12 stage 2, A15: by the id prefix).
  const master = loadProjectorConfig(s.env).privacy.masterKey
  const prefix = `${accountId}\u0000${pseudonymOf(accountSecretOf(master, accountId), 'erased')}\u0000`
  t.comment('reading the keys topic')
  const ids = (await readTopic(s.kafka, s.topics.keys!))
    .map((r) => r.key!.toString())
    .filter((k) => k.startsWith(prefix))
  t.ok(ids.length > 0, "the erased person's keys are on the keys topic")
  const producer = createProducer(s.kafka, { idempotent: true })
  await producer.connect()
  await producer.send({ topic: s.topics.keys!, acks: -1, messages: ids.map((key) => ({ key, value: null })) })
  await producer.disconnect()

  const cfg = loadProjectorConfig(s.env)
  const io = { log: createLogger('error') }
  const fresh = `${s.database}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const topics: Array<'events' | 'identifies'> = ['events', 'identifies']
  const base = { topics, from: { kind: 'beginning' as const }, swap: false, dlq: true, json: false }
  t.comment('replaying into a fresh database')
  const single = await runReplayCommand(cfg, { ...base, target: 'fresh', database: fresh }, io)
  const kept = (r: Record<string, unknown>) => r.user_id !== 'erased'
  t.same(await rows(s, fresh), clear.rows.filter(kept), 'a fresh replay opens every record whose key is held')
  t.same(await s.query(`SELECT 1 FROM ${fresh}.events WHERE user_id NOT IN ('ada', 'keeper')`), [], 'nothing else')
  t.equal(await billedEvents(s, fresh, accountId), 6, "the erased person's events still count")

  t.comment('replaying into a fresh database in two threads (A30)')
  const parted = `${s.database}_parts`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${parted}` }))
  const notes: string[] = []
  const inParts = await runReplayCommand(
    cfg,
    { ...base, target: 'fresh', database: parted, workers: 2 },
    { ...io, note: (line) => notes.push(line) },
  )
  t.match(notes.join('\n'), /^2 parts, each a thread over \d+ \/ \d+ partition\(s\)/m, 'the replay ran in two threads')
  t.match(notes.join('\n'), /^\d+ data keys held/m, 'the first part says what it loaded')
  t.same(await rows(s, parted), clear.rows.filter(kept), 'each thread opens its records with the keys it read itself')
  t.equal(await billedEvents(s, parted, accountId), 6, "the erased person's events still count")
  const counts = ({ records, byTopic, events, identifies, deadLettered, ends }: typeof single.summary) => ({
    records,
    byTopic,
    events,
    identifies,
    deadLettered,
    ends,
  })
  t.same(counts(inParts.summary), counts(single.summary), "the summary adds up both parts' to the one-thread replay's")
  t.equal(inParts.summary.events + inParts.summary.identifies, 6, 'six rows written (the erased person: usage only)')

  t.comment('replaying into the live tables')
  await runReplayCommand(cfg, { ...base, target: 'live' }, io)
  t.same(await rows(s, s.database), clear.rows, 'a replay into the live tables changes no row')
  t.equal(await billedEvents(s, s.database, accountId), 6, 'nor any count')
})
