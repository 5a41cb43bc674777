// The issue's log-scan proof (A17, docs/privacy.md) against the real stack, with sealing on: a person with
// a unique marker in every personal field goes through every record type (our /v1/event, /v1/events with
// an event and an identify, Segment's track, identify, alias and group), is erased, and the keys topic is
// made to forget in seconds. Then every file of the broker's log directories of the event topics and the
// keys topic is read as anyone holding the disks could: (a) the marker is in none of them, in any encoding;
// (b) every key left in the keys topic's files, unwrapped with the master key, is tried on every sealed
// record of the event topics' files: none of the erased person's records opens, another person's still do.
// The erasures topic's files are scanned too: its record names the person by pseudonym, the user id sealed
// under a key that went with the person's (A22).
import t from 'tap'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { startServices, waitUntil } from '../support/harness.js'
import { openAdmin, openPrivacy } from '../../scripts/admin-context.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { decryptRecord } from '../../services/shared/src/privacy/crypto/index.js'
import type { Codec } from '../../schemas/codec.js'
import { filesHolding, keysOnDisk, segmentRecords, topicFiles, type DiskRecord } from './log-files.js'
import { FAST_KEYS_ENV, makeKeysTopicFast } from './keys-topic.js'

const LOG_DIR = join(process.env.STACK_DIR ?? join(import.meta.dirname, '../../.stack'), 'kafka', 'data')

/** The person's items through every route, the marker in each personal field. */
async function sendAll(
  post: (path: string, body: unknown, opts: object) => Promise<{ status: number }>,
  key: string,
  m: string,
) {
  const user = { id: `${m}-user`, email: `${m}@example.test`, traits: { name: `${m} name` } }
  const props = { note: `${m} prop` }
  const ctx = { ip: '203.0.113.7', userAgent: `${m}-agent`, page: { url: `https://example.test/${m}` } }
  const seg = { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }
  const base = { userId: user.id, anonymousId: `${m}-anon`, context: ctx, messageId: `${m}-msg` }
  const sent = [
    await post('/v1/event', { event: 'opened', user, properties: props, context: ctx }, { key }),
    await post(
      '/v1/events',
      {
        sent_at: new Date().toISOString(),
        events: [
          { type: 'event', event: 'paid', user, properties: props, context: ctx },
          { type: 'identify', user, traits: { plan: `${m} plan` }, context: ctx },
        ],
      },
      { key },
    ),
    await post('/v1/track', { ...base, event: 'seg', properties: props }, seg),
    await post('/v1/identify', { ...base, traits: { email: `${m}@example.test` } }, seg),
    await post('/v1/alias', { ...base, previousId: `${m}-prev` }, seg),
    await post('/v1/group', { ...base, groupId: `${m}-group`, traits: { n: m } }, seg),
  ]
  return sent.map((r) => r.status)
}

/** User ids of the records that open (or are in clear), each sealed record tried with every key. */
async function openable(codec: Codec, records: DiskRecord[], keys: Buffer[]): Promise<string[]> {
  const out: string[] = []
  for (const r of records) {
    if (r.value === null) continue
    const { name, value } = await codec.decode(r.value)
    const kind = name === 'Identify' ? 'identify' : 'event'
    for (const k of value.enc ? keys : [undefined]) {
      try {
        const rec = decryptRecord(kind, value, () => k)
        if (rec) {
          out.push(String(rec.user_id))
          break
        }
      } catch {
        // not this key
      }
    }
  }
  return out
}

t.test('after an erasure and the deadline, no byte of the log files gives the person back', async (t) => {
  const s = await startServices(t, { env: FAST_KEYS_ENV })
  const keysTopic = s.topics.keys!
  await makeKeysTopicFast(s.kafka, keysTopic)
  const { key, accountId } = await s.createKey({ type: 'live' })
  const erased = `mk${randomBytes(6).toString('hex')}`
  const kept = `mk${randomBytes(6).toString('hex')}`
  t.same(
    await sendAll((p, b, o) => s.post(p, b, o as never), key, erased),
    [200, 200, 200, 200, 200, 200],
    'every route takes the person',
  )
  t.same(
    await sendAll((p, b, o) => s.post(p, b, o as never), key, kept),
    [200, 200, 200, 200, 200, 200],
    'and another person',
  )
  const master = loadProjectorConfig(s.env).privacy.masterKey
  const { codec, close: closeAdmin } = await openAdmin(s.env)
  t.teardown(closeAdmin)
  const eventFiles = () => [...topicFiles(LOG_DIR, s.topics.events), ...topicFiles(LOG_DIR, s.topics.identifies)]
  const diskKeys = () => keysOnDisk(topicFiles(LOG_DIR, keysTopic), master)
  const whoOpens = async () => openable(codec, segmentRecords(eventFiles()), diskKeys())
  const count = (ids: string[], m: string) => ids.filter((id) => id === `${m}-user`).length

  const before = await whoOpens()
  t.equal(count(before, erased), 7, "before: the person's seven records on disk open with the keys on disk")
  t.equal(count(before, kept), 7, "and the other person's")
  t.same(filesHolding(eventFiles(), erased), [], 'sealed: no event file holds the marker even before')

  const { privacy, close } = await openPrivacy(s.env)
  t.teardown(close)
  const user = `${erased}-user`
  await privacy.requestErasure({ accountId, userId: user, requestedBy: 'test', suppress: false })
  await waitUntil(() => privacy.erasures.get(accountId, user)?.disk_gone_at != null, 240_000, 'disk_gone_at')

  const files = [...eventFiles(), ...topicFiles(LOG_DIR, keysTopic), ...topicFiles(LOG_DIR, s.topics.erasures!)]
  t.ok(files.length >= 9, `the topics' files are read (${files.length})`)
  t.same(filesHolding(files, erased), [], '(a) no file holds the marker: plain, base64, hex, UTF-16, JSON-escaped')
  const after = await whoOpens()
  t.equal(count(after, erased), 0, "(b) none of the erased person's records opens with any key left on disk")
  t.equal(count(after, kept), 7, "while every record of the other person's still opens")
  t.equal(segmentRecords(eventFiles()).length, 14, "the erased person's records are still on disk, sealed")
})
