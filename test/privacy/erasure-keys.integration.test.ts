// A17 against the real stack, with sealing on: an erasure tombstones every data key of the person (every
// month and generation ingest minted), the receipt's history_unreadable_at is set once the broker acked
// them, and disk_gone_at once a read of the keys topic from its start finds no record of those keys and
// the broker's file.delete.delay.ms has passed. The topic gets small compaction settings (seconds), as
// docs/privacy.md's test figures; another person's key stays and still unwraps.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { readTopic } from '../support/read-topic.js'
import { openPrivacy } from '../../scripts/admin-context.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { randomBytes } from 'node:crypto'
import { unwrapDataKey, wrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'
import { personKeyPrefix } from '../../services/projector/src/privacy/person-keys.js'
import { FAST_KEYS_ENV, makeKeysTopicFast } from './keys-topic.js'

t.test('an erasure tombstones every key of the person and the receipt sees them gone from disk', async (t) => {
  const s = await startServices(t, { env: FAST_KEYS_ENV })
  const topic = s.topics.keys!
  await makeKeysTopicFast(s.kafka, topic)
  const { key, accountId } = await s.createKey({ type: 'live' })
  const user = `erased-${Date.now().toString(36)}`
  for (const id of [user, 'keeper'])
    t.equal((await s.post('/v1/event', { event: 'opened', user: { id } }, { key })).status, 200)
  const master = loadProjectorConfig(s.env).privacy.masterKey
  const mine = personKeyPrefix(master, accountId, user)
  const theirs = personKeyPrefix(master, accountId, 'keeper')
  // Another generation of the same person (as another ingest instance or another month would mint).
  const extra = `${mine}2020-01\u0000feedbeef`
  const producer = s.kafka.producer()
  await producer.connect()
  // Wrapped as ingest wraps it: the projector's holder reads every key (and the erasure's own, A22).
  const value = wrapDataKey(master, extra, randomBytes(32))
  await producer.send({ topic, acks: -1, messages: [{ key: extra, value }] })
  await producer.disconnect()
  const before = await readTopic(s.kafka, topic)
  t.equal(before.filter((r) => r.key!.toString().startsWith(mine)).length, 2, "the person's two keys are stored")
  t.equal(before.filter((r) => r.key!.toString().startsWith(theirs)).length, 1, "and the other person's")

  const { privacy, close } = await openPrivacy(s.env)
  t.teardown(close)
  const r = await privacy.requestErasure({ accountId, userId: user, requestedBy: 'test', suppress: false })
  const receipt = () => privacy.erasures.get(accountId, user)!
  await waitUntil(() => receipt().history_unreadable_at !== null, 60_000, 'history_unreadable_at')
  const after = await readTopic(s.kafka, topic)
  const latest = new Map(after.map((x) => [x.key!.toString(), x.value]))
  const ids = [...latest.keys()]
  t.same(
    ids.filter((id) => id.startsWith(mine) && latest.get(id) !== null),
    [],
    "every key of the person's is tombstoned",
  )
  t.equal(ids.filter((id) => id.startsWith(mine)).length, 3, "both generations, and the erasure's own key (A22)")
  const kept = ids.filter((id) => id.startsWith(theirs))
  t.equal(kept.length, 1, "another person's key stays")
  t.equal(unwrapDataKey(master, kept[0]!, latest.get(kept[0]!)!).length, 32, 'and still unwraps')
  t.comment(`request to tombstones acked: ${receipt().history_unreadable_at! - r.requested_at} ms`)

  await waitUntil(() => receipt().disk_gone_at !== null, 240_000, 'disk_gone_at')
  const e = receipt()
  t.ok(e.projections_purged_at! <= e.history_unreadable_at! && e.history_unreadable_at! <= e.disk_gone_at!, 'in order')
  const left = await readTopic(s.kafka, topic)
  t.same(
    left.filter((x) => x.key!.toString().startsWith(mine)).map((x) => x.offset),
    [],
    'no record of the keys is left, nor their tombstones',
  )
  t.ok(
    left.some((x) => x.key!.toString().startsWith(theirs) && x.value !== null),
    "another person's key is still on the topic",
  )
  t.comment(`tombstones acked to disk gone: ${e.disk_gone_at! - e.history_unreadable_at!} ms`)
})
