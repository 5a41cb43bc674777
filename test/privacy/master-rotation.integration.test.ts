// A35 against the real stack: PRIVACY_MASTER_KEY rotated. Services given the new master, the old one in
// PRIVACY_OLD_MASTER_KEY and the pseudonym key of before still project every person, a person keeps their
// pseudonym (an erasure finds the keys of both masters), `npm run privacy -- rewrap` wraps every key again
// with the new master, and afterwards services and a replay given the new master alone rebuild every row,
// while `rewrap --check` counts the old master's copies down to none once the cleaner has compacted.
import t, { type Test } from 'tap'
import { startServices, waitUntil, type TestServices } from '../support/harness.js'
import { readTopic } from '../support/read-topic.js'
import { metricValue } from '../support/metrics-text.js'
import { FAST_KEYS_ENV, makeKeysTopicFast } from './keys-topic.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { runReplayCommand } from '../../services/projector/src/replay/index.js'
import { createProducer, type Producer } from '../../services/shared/src/kafka/client.js'
import { MasterKeyRing, unwrapDataKey, wrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'
import { personKeyPrefix } from '../../services/projector/src/privacy/person-keys.js'
import { rewrapCommand } from '../../scripts/privacy/rewrap-cli.js'
import { rewrap } from '../../scripts/privacy/rewrap.js'
import { openPrivacy } from '../../scripts/admin-context.js'

const OLD = 'a1'.repeat(32)
const NEW = 'b2'.repeat(32)
const old = Buffer.from(OLD, 'hex')
const current = Buffer.from(NEW, 'hex')
const ROTATING = { PRIVACY_MASTER_KEY: NEW, PRIVACY_OLD_MASTER_KEY: OLD, PRIVACY_PSEUDONYM_KEY: OLD }
const ROTATED = { PRIVACY_MASTER_KEY: NEW, PRIVACY_PSEUDONYM_KEY: OLD }

async function send(t: Test, s: TestServices, key: string, who: string[]) {
  for (const id of who) {
    const user = { id, email: `${id}@example.test` }
    t.equal((await s.post('/v1/event', { event: 'opened', user, properties: { who: id } }, { key })).status, 200)
  }
}

const rows = (s: TestServices, db: string) =>
  s.query<{ user_id: string; user_email: string }>(
    `SELECT user_id, user_email FROM ${db}.events FINAL ORDER BY user_id, user_email`,
  )

/** The latest record of each key id on the keys topic, tombstones as null. */
async function latestKeys(s: TestServices): Promise<Map<string, Buffer | null>> {
  const latest = new Map<string, Buffer | null>()
  for (const r of await readTopic(s.kafka, s.topics.keys!)) latest.set(r.key!.toString('utf8'), r.value)
  return latest
}

const opens = (master: Buffer, id: string, wrapped: Buffer) => {
  try {
    unwrapDataKey(master, id, wrapped)
    return true
  } catch {
    return false
  }
}

/** A gauge of the projector's /metrics. */
async function metric(s: TestServices, name: string): Promise<number> {
  return metricValue(await (await fetch(`${s.projectorUrl}/metrics`)).text(), name)
}
const oldKeys = (s: TestServices) => metric(s, 'projector_data_keys_old_master')

/** The CLI's output lines and exit code, run with the environment of `s`'s services and `over`. */
async function cli(s: TestServices, over: Record<string, string>, check: boolean) {
  const out: string[] = []
  const log = console.log
  console.log = (line: string) => void out.push(line)
  try {
    const code = await rewrapCommand({ check }, { ...s.env, ...over })
    return { code, out: out.join('\n') }
  } finally {
    console.log = log
  }
}

t.test(
  'the master key rotates: both open meanwhile, rewrap moves every key, then the new one alone reads all',
  async (t) => {
    t.comment('before: services with the old master')
    const first = await startServices(t, { env: { ...FAST_KEYS_ENV, PRIVACY_MASTER_KEY: OLD } })
    await makeKeysTopicFast(first.kafka, first.topics.keys!)
    const { key, accountId } = await first.createKey({ type: 'live' })
    await send(t, first, key, ['ada', 'bob'])
    await first.waitForRows(`SELECT 1 FROM ${first.database}.events`, 2)
    await first.ingest!.close()
    await first.projector!.close()

    t.comment('rotating: the new master, the old one still opening keys, the pseudonyms of before')
    const rotating = await startServices(t, { suffix: first.suffix, env: { ...FAST_KEYS_ENV, ...ROTATING } })
    await send(t, rotating, key, ['ada', 'cy'])
    await rotating.waitForRows(`SELECT 1 FROM ${rotating.database}.events`, 4)
    t.same(
      (await rows(rotating, rotating.database)).map((r) => r.user_id),
      ['ada', 'ada', 'bob', 'cy'],
      "the projector opens the old master's keys and the new one's",
    )
    t.equal(await oldKeys(rotating), 2, "the projector counts ada's and bob's first keys as opened by the old master")
    const ada = personKeyPrefix(old, accountId, 'ada')
    const before = [...(await latestKeys(rotating))].filter(([id, v]) => id.startsWith(ada) && v !== null)
    t.equal(
      before.length,
      2,
      "ada has two keys, one from each ingest, under one pseudonym: the rotation's and before's",
    )
    t.same(
      before.map(([id, v]) => [opens(old, id, v!), opens(current, id, v!)]),
      [
        [true, false],
        [false, true],
      ],
      'the first is wrapped by the old master, the one minted after the rotation by the new',
    )

    t.comment("an erasure while rotating takes the person's keys of both masters")
    const { privacy, close } = await openPrivacy({ ...rotating.env, ...ROTATING })
    t.teardown(close)
    await send(t, rotating, key, ['dee'])
    await rotating.waitForRows(`SELECT 1 FROM ${rotating.database}.events WHERE user_id = 'dee'`)
    await privacy.requestErasure({ accountId, userId: 'bob', requestedBy: 'test', suppress: false })
    await waitUntil(() => privacy.erasures.get(accountId, 'bob')?.history_unreadable_at != null, 60_000, 'bob erased')
    const bob = personKeyPrefix(old, accountId, 'bob')
    const bobs = [...(await latestKeys(rotating))].filter(([id]) => id.startsWith(bob))
    t.equal(bobs.length, 2, "bob's data key (the old master's) and the erasure's own key (the new master's, A22)")
    t.ok(
      bobs.every(([, v]) => v === null),
      'both tombstoned: found under the pseudonym of before',
    )

    t.comment('rewrap --check counts; rewrap writes the old keys again')
    const checked = await cli(rotating, ROTATING, true)
    t.equal(checked.code, 1, '--check fails while the old master opens a key')
    // Old: ada's first key and bob's (erased: counted while its copy is served, not written again); new:
    // ada's second, cy's, dee's and the erasure's own (tombstoned, its copy still served).
    t.match(checked.out, /4 keys wrapped by PRIVACY_MASTER_KEY, 2 by an old master key, 0 by no key given/)
    const done = await cli(rotating, ROTATING, false)
    t.equal(done.code, 0)
    t.match(done.out, /1 written again under PRIVACY_MASTER_KEY, 0 tombstones written again/)
    const after = await latestKeys(rotating)
    const live = [...after].filter(([id, v]) => v !== null && !id.startsWith('\u0000'))
    t.equal(live.length, 4, "as many keys as before: ada's two, cy's, dee's")
    t.ok(
      live.every(([id, v]) => opens(current, id, v!) && !opens(old, id, v!)),
      "every key's latest copy is wrapped by the new master alone",
    )

    t.comment('rotated: the new master alone')
    await rotating.ingest!.close()
    await rotating.projector!.close()
    const rotated = await startServices(t, { suffix: first.suffix, env: { ...FAST_KEYS_ENV, ...ROTATED } })
    await send(t, rotated, key, ['bob'])
    await rotated.waitForRows(`SELECT 1 FROM ${rotated.database}.events`, 5)
    const cfg = loadProjectorConfig(rotated.env)
    const fresh = `${rotated.database}_rotated`
    t.teardown(() => rotated.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
    const topics: Array<'events' | 'identifies'> = ['events', 'identifies']
    await runReplayCommand(
      cfg,
      { topics, from: { kind: 'beginning' }, swap: false, dlq: true, json: false, target: 'fresh', database: fresh },
      { log: createLogger('error') },
    )
    t.same(
      await rows(rotated, fresh),
      await rows(rotated, rotated.database),
      'a replay with the new master alone rebuilds every row, those sealed before the rotation included',
    )
    t.same(
      (await rows(rotated, fresh)).map((r) => r.user_email),
      ['ada@example.test', 'ada@example.test', 'bob@example.test', 'cy@example.test', 'dee@example.test'],
      "opened, not stubs; bob's event after his erasure only",
    )

    t.comment('the old copies leave: rewrap --check counts down to none')
    let last = ''
    await waitUntil(
      async () => {
        const r = await cli(rotated, ROTATING, true)
        last = r.out
        return r.code === 0
      },
      60_000,
      'the cleaner to drop the old master copies',
    ).catch((err) => {
      t.comment(last)
      throw err
    })
    t.match(last, /0 by an old master key, 0 by no key given/)
    t.match(last, /remove PRIVACY_OLD_MASTER_KEY/)
    t.notOk(
      [...(await readTopic(rotated.kafka, rotated.topics.keys!))].some(
        (r) => r.value !== null && opens(old, r.key!.toString(), r.value),
      ),
      'no record the broker serves opens with the old master',
    )

    t.comment('a projector given both masters again opens no key with the old one: it may be removed')
    await rotated.ingest!.close()
    await rotated.projector!.close()
    const again = await startServices(t, {
      suffix: first.suffix,
      ingest: false,
      env: { ...FAST_KEYS_ENV, ...ROTATING },
    })
    await waitUntil(async () => (await metric(again, 'projector_data_keys_held')) >= 5, 30_000, 'the keys read')
    t.equal(await oldKeys(again), 0, 'projector_data_keys_old_master says the old master is no longer needed')
  },
)

t.test('a key tombstoned while rewrap runs is tombstoned again after its re-wrapped copy', async (t) => {
  const s = await startServices(t, { ingest: false, projector: false, env: ROTATING })
  const producer = createProducer(s.kafka, { idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const admin = s.kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: s.topics.keys!, numPartitions: 1 }] })
  await admin.disconnect()
  const ids = ['acct\u0000p1\u00002026-11\u0000s01', 'acct\u0000p2\u00002026-11\u0000s02']
  await producer.send({
    topic: s.topics.keys!,
    acks: -1,
    messages: ids.map((id) => ({ key: id, value: wrapDataKey(old, id, Buffer.alloc(32, 7)) })),
  })
  // The erasure's tombstone lands after rewrap read the topic, just before it writes the re-wrapped keys.
  let erased = false
  const racing: Producer = {
    ...producer,
    async send(r) {
      if (!erased) {
        erased = true
        await producer.send({ topic: s.topics.keys!, acks: -1, messages: [{ key: ids[0]!, value: null }] })
      }
      return producer.send(r)
    },
  }
  const summary = await rewrap(
    {
      kafka: s.kafka,
      producer: racing,
      topic: s.topics.keys!,
      masters: new MasterKeyRing(current, [old]),
      progressMs: 1000,
      note: () => undefined,
    },
    { check: false },
  )
  t.ok(erased, 'the tombstone was written while the keys were read')
  t.equal(summary.rewrapped, 2, 'both keys were re-wrapped')
  t.equal(summary.retombstoned, 1, 'the erased one was tombstoned again')
  const latest = await latestKeys(s)
  t.equal(latest.get(ids[0]!), null, 'the erased key stays erased')
  t.ok(opens(current, ids[1]!, latest.get(ids[1]!)!), 'the other is wrapped by the new master')
})
