// A30 against the real stack: a replay in parts fails as a whole when one part fails, says which, and
// returns only once every part's thread has ended (none is left writing after the command returned).
import t from 'tap'
import { startServices } from '../support/harness.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { planReplay } from '../../services/projector/src/replay/index.js'
import { splitRanges } from '../../services/projector/src/replay/parts.js'
import { replayInParts } from '../../services/projector/src/replay/workers.js'
import { openReplayClients, readKeysOnce } from '../../services/projector/src/replay/inputs.js'

t.test('a part that cannot start fails the replay, and the other parts are stopped', async (t) => {
  // The projector applies the migrations; the replays below write the same rows again (A5).
  const s = await startServices(t)
  const { key } = await s.createKey({ type: 'live' })
  const events = Array.from({ length: 30 }, (_, i) => ({ type: 'event', event: 'e', user: { id: `u${i}` } }))
  t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })).status, 200)
  // Ingest answers once its transaction is committed (A4); the broker writes the commit markers into the
  // partitions after that, and until a partition has its marker the plan's end (its committed end) lies
  // before the records. The live projector reads committed records only: all thirty projected, every
  // marker is written. (Without this wait the plan once saw one partition of three.)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events FINAL`, 30)
  const cfg = loadProjectorConfig(s.env)
  const admin = s.kafka.admin()
  await admin.connect()
  const ranges = await planReplay(admin, [cfg.topics.events], { kind: 'beginning' })
  await admin.disconnect()
  const shares = splitRanges(ranges, 2)
  t.equal(shares.length, 2, 'thirty people over three partitions: two parts')
  const options = {
    dlqTopic: cfg.topics.dlq,
    dlq: true,
    retries: 0,
    maxRows: 1000,
    maxWaitMs: 100,
    fetchPartitionBytes: 1 << 20,
  }
  const io = { log: createLogger('error'), note: () => undefined }

  // No registry answers here: each part fails while it loads, before it reads a record.
  const unreachable = { ...cfg, registryUrl: 'http://127.0.0.1:9' }
  await t.rejects(
    replayInParts(unreachable, s.database, shares, options, Date.now(), undefined, io),
    { message: /^replay part [01] failed: / },
    'the replay fails with the first part that failed, named',
  )

  // One part fails after the start, while the other waits for records that never come (its range ends
  // past the topic's end): the replay fails, and returns only once the waiting part was stopped.
  const waiting = ranges.filter((r) => r.end > r.start).map((r) => ({ ...r, end: r.end + 1000n }))
  const missing = [{ topic: `${cfg.topics.events}.missing`, partition: 0, start: 0n, end: 10n }]
  await t.rejects(
    replayInParts(cfg, s.database, [waiting, missing], options, Date.now(), undefined, io),
    { message: /^replay part 1 failed: / },
    'the part that failed is named; the one still waiting was stopped, else this never settles',
  )

  // The same parts with a working configuration replay every record: the failure above was the registry's.
  // A33: the records are sealed (A29's default); the parts open them with the keys the main thread read
  // once, reading none of the keys topic themselves.
  const clients = await openReplayClients(cfg, io.log)
  t.teardown(() => clients.close())
  const keys = await readKeysOnce(cfg, clients, io.log)
  t.equal(keys?.image.count, 30, 'thirty people, thirty keys read once')
  const summary = await replayInParts(cfg, s.database, shares, options, Date.now(), keys, io)
  t.equal(summary.records, 30)
  t.equal(summary.events, 30)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events FINAL`, 30)
})
