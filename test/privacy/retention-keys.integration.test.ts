// A23 against the real stack, with sealing on and the keys topic made to forget in seconds (as
// erasure-keys.integration.test.ts): an account keeping one month has sealed events received in an old
// month (written as ingest writes them, with that month's data key) and in the current month. After the
// retention job, its old month's keys are tombstoned and watched off the disks: a replay writes only the
// current month's rows, none of the old month's sealed records on disk opens with any key left in the
// keys topic's files, and another account's old record (no retention) still opens.
import t from 'tap'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { startServices, waitUntil } from '../support/harness.js'
import { makeEvent } from '../support/clickhouse-helpers.js'
import { openPrivacy } from '../../scripts/admin-context.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { parseReplayArgs, runReplayCommand } from '../../services/projector/src/replay/index.js'
import { AccountRetention } from '../../services/projector/src/retention/account-retention.js'
import { COUNTS_TABLES } from '../../services/shared/src/rollup/counts-tables.js'
import { MonthKeysShredder } from '../../services/projector/src/retention/month-keys.js'
import { KeysEraser } from '../../services/projector/src/privacy/keys-eraser.js'
import { RecordSealer } from '../../services/ingest/src/privacy/record-sealer.js'
import { loadRetention } from '../../services/shared/src/privacy/retention-log.js'
import { decryptRecord } from '../../services/shared/src/privacy/crypto/index.js'
import type { EventRecord } from '../../schemas/records.js'
import { keysOnDisk, segmentRecords, topicFiles } from './log-files.js'
import { FAST_KEYS_ENV, makeKeysTopicFast } from './keys-topic.js'

const DAY = 86_400_000
const LOG_DIR = join(process.env.STACK_DIR ?? join(import.meta.dirname, '../../.stack'), 'kafka', 'data')

t.test("a retention tombstones its expired months' data keys and sees them gone from disk", async (t) => {
  const s = await startServices(t, { env: FAST_KEYS_ENV })
  const keysTopic = s.topics.keys!
  await makeKeysTopicFast(s.kafka, keysTopic)
  const kept = await s.createKey({ type: 'live' })
  const other = await s.createKey({ type: 'live' })
  const db = s.database
  const now = Date.now()
  const old = now - 70 * DAY
  const cfg = loadProjectorConfig(s.env)
  const master = cfg.privacy.masterKey
  const { kafka, codec } = s.projector!.deps

  // Records received in an old month, sealed and keyed as ingest seals them (its data key stored first).
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const sealer = new RecordSealer(
    master,
    async (keys) =>
      void (await producer.send({
        topic: keysTopic,
        acks: -1,
        messages: keys.map((k) => ({ key: k.id, value: k.wrapped })),
      })),
    100,
  )
  const oldEvent = (account_id: string, user_id: string) =>
    makeEvent({ account_id, user_id, event: 'old', timestamp: old, received_at: old })
  const sealed = await sealer.seal<EventRecord>([
    { kind: 'event', record: oldEvent(kept.accountId, 'ada') },
    { kind: 'event', record: oldEvent(other.accountId, 'bob') },
  ])
  await producer.send({
    topic: s.topics.events,
    acks: -1,
    messages: sealed.map((r) => ({ key: r.key, value: codec.encode('Event', r.record) })),
  })
  t.equal((await s.post('/v1/event', { event: 'new', user: { id: 'ada' } }, { key: kept.key })).status, 200)
  await s.waitForRows(`SELECT 1 FROM ${db}.events`, 3)
  // person_weeks is filled by a materialized view of the events inserts, its part committed after theirs: wait
  // for the kept account's two weeks, each for its event and for "any event" (U23), before the job counts them.
  await s.waitForRows(`SELECT DISTINCT event, week FROM ${db}.person_weeks WHERE account_id = '${kept.accountId}'`, 4)

  const diskKeys = () => keysOnDisk(topicFiles(LOG_DIR, keysTopic), master)
  /** The event names of the records in the events topic's files that open with a key in the keys topic's files. */
  const openable = async () => {
    const keys = diskKeys()
    const out: string[] = []
    for (const r of segmentRecords(topicFiles(LOG_DIR, s.topics.events))) {
      const { value } = await codec.decode(r.value!)
      for (const k of keys) {
        try {
          const rec = decryptRecord('event', value, () => k)
          if (rec) {
            out.push(`${rec.account_id === kept.accountId ? 'kept' : 'other'}:${rec.event}`)
            break
          }
        } catch {
          // not this key
        }
      }
    }
    return out.sort()
  }
  t.same(await openable(), ['kept:new', 'kept:old', 'other:old'], 'before: every record on disk opens')

  const { admin, close } = await openPrivacy(s.env)
  t.teardown(close)
  await admin.setRetention(kept.accountId, 1)
  const log = createLogger('error')
  const rules = await loadRetention(kafka, codec, cfg.topics.accounts, log)
  const registry = new Registry()
  const shredder = new MonthKeysShredder(
    new KeysEraser(kafka, producer, { topic: keysTopic, pseudonymKey: master, checkMs: 500 }),
    log,
    registry,
  )
  const job = new AccountRetention(s.ch, db, rules, log, { now: () => now, pollMs: 50, registry, keys: shredder })
  const run = await job.runOnce()
  // The counts tables' hours go too when the recount has counted them by now (retention-counts' test, H82).
  const counts = new Set(COUNTS_TABLES.map((c) => c.table))
  t.same(
    run.removed.filter((r) => !counts.has(r.table)).map((r) => [r.account_id, r.table, r.rows]),
    [
      [kept.accountId, 'events', 1],
      [kept.accountId, 'person_weeks', 2],
    ],
    "the old month's row is deleted from ClickHouse, with its person's week (U23)",
  )
  t.equal(run.keys?.[0]?.tombstoned, 1, "the old month's data key is tombstoned")
  let gone: number | undefined
  await waitUntil(
    async () => {
      gone = (await shredder.look(rules.cutoffs(now)))[0]?.disk_gone_at
      return gone !== undefined
    },
    240_000,
    'the expired keys gone from disk',
  )
  t.comment(`retention run to keys gone from disk: ${gone! - now} ms`)
  const metrics = await registry.metrics()
  t.match(metrics, /^projector_retention_keys_tombstoned_total 1$/m, 'the metrics count the tombstoned key')
  t.match(metrics, /^projector_retention_keys_on_disk 0$/m, 'and say none is left on the topic')

  t.same(await openable(), ['kept:new', 'other:old'], "the old month's record opens with no key left on disk")
  t.equal(segmentRecords(topicFiles(LOG_DIR, s.topics.events)).length, 3, 'while the record is still on disk, sealed')

  const fresh = `${db}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const cmd = parseReplayArgs(['--target', 'fresh', '--database', fresh])
  if (cmd === 'help') throw new Error('unexpected usage answer')
  // Replayed with a clock of the old month: its cutoff hides nothing of that month, only the forgotten key does.
  await runReplayCommand(cfg, cmd, { log, now: () => old })
  const rows = await s.query<{ a: string; event: string }>(
    `SELECT if(account_id = '${kept.accountId}', 'kept', 'other') AS a, event FROM ${fresh}.events ORDER BY a, event`,
  )
  t.same(
    rows.map((r) => `${r.a}:${r.event}`),
    ['kept:new', 'other:old'],
    "a replay has the current month's rows and the other account's old one",
  )
})
