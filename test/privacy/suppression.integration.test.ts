// Suppression (H55) and IP handling (H56) against the real stack: after an erasure with suppression,
// ingest refuses new items about that user (403 USER_SUPPRESSED for /v1/event, a per-item
// USER_SUPPRESSED in a batch whose other items are stored), nothing of them is stored or counted;
// and an account's IP handling decides what reaches Kafka and ClickHouse. Suppression runs with sealing off
// and on (A22: the erasure then names the person by pseudonym, and ingest matches by it).
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { openPrivacy } from '../../scripts/admin-context.js'
import { readTopic } from '../support/read-topic.js'
import { billedEvents, waitForBilled } from '../support/usage.js'

const batch = (items: unknown[]) => ({ sent_at: new Date().toISOString(), events: items })

for (const encrypt of [false, true])
  t.test(
    `a suppressed user is refused, and nothing of them is stored or counted (sealing ${encrypt ? 'on' : 'off'})`,
    async (t) => {
      const s = await startServices(t, { env: { PRIVACY_ENCRYPT: String(encrypt) } })
      const { key, accountId } = await s.createKey({ type: 'live' })
      const { privacy, close } = await openPrivacy(s.env)
      t.teardown(close)
      const r = await privacy.requestErasure({ accountId, userId: 'gone', requestedBy: 'test', suppress: true })
      t.ok((await privacy.purged(accountId, 'gone', r.erasure_id, 60_000))?.projections_purged_at, 'purged')

      // Ingest follows the erasures topic within its fetch wait; poll until it refuses.
      let single = await s.post('/v1/event', { event: 'opened', user: { id: 'gone' } }, { key })
      await waitUntil(
        async () =>
          (single = await s.post('/v1/event', { event: 'opened', user: { id: 'gone' } }, { key })).status === 403,
        15_000,
        'ingest refuses the suppressed user',
      )
      t.equal(single.body.error.code, 'USER_SUPPRESSED')

      const mixed = await s.post(
        '/v1/events',
        batch([
          { type: 'event', name: 'opened', user: { id: 'gone' } },
          { type: 'event', name: 'opened', user: { id: 'stays' }, message_id: 'm-stays' },
          { type: 'identify', user: { id: 'gone' }, traits: { plan: 'x' } },
        ]),
        { key },
      )
      t.equal(mixed.status, 200)
      t.same(
        mixed.body.data.results.map((x: { success: boolean; error?: { code: string } }) => x.success || x.error?.code),
        ['USER_SUPPRESSED', true, 'USER_SUPPRESSED'],
      )
      t.equal(mixed.body.data.processed_count, 1)

      // The Segment-compatible endpoints (H49-H53) refuse the person too: a track, an identify, and an alias
      // that would link an anonymous id to them. None may bring the erased person back.
      const segmentKey = { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }
      const segmentCalls: Array<[string, Record<string, unknown>]> = [
        ['/v1/track', { userId: 'gone', event: 'opened', messageId: 'seg-track-gone' }],
        ['/v1/identify', { userId: 'gone', traits: { email: 'gone@example.com' }, messageId: 'seg-identify-gone' }],
        ['/v1/alias', { userId: 'gone', previousId: 'anon-gone', messageId: 'seg-alias-gone' }],
      ]
      for (const [path, body] of segmentCalls) {
        const seg = await s.post(path, body, segmentKey)
        t.not(seg.status, 200, `${path} for the suppressed user is not accepted`)
        t.match(JSON.stringify(seg.body), /USER_SUPPRESSED/, `${path} says why`)
      }
      const segBatch = await s.post(
        '/v1/batch',
        {
          batch: [
            { type: 'track', userId: 'gone', event: 'opened', messageId: 'seg-batch-gone' },
            { type: 'track', userId: 'stays', event: 'opened', messageId: 'seg-batch-stays' },
          ],
        },
        segmentKey,
      )
      t.equal(segBatch.status, 200, 'a Segment batch stores its other items')

      await s.waitForRows(`SELECT 1 FROM ${s.database}.events WHERE user_id = 'stays'`, 2)
      t.same(
        await s.query(`SELECT event_id FROM ${s.database}.events WHERE user_id = 'gone'`),
        [],
        'no event of the suppressed user',
      )
      t.same(
        await s.query(`SELECT event_id FROM ${s.database}.identifies WHERE user_id = 'gone'`),
        [],
        'no identify either',
      )
      t.same(
        await s.query(`SELECT user_id FROM ${s.database}.identity_links WHERE user_id = 'gone'`),
        [],
        'no identity link either',
      )
      await waitForBilled(s, s.database, accountId, 2, 'usage counts the stored events')
      t.equal(await billedEvents(s, s.database, accountId), 2, 'only the stored events count')

      const allGone = await s.post('/v1/events', batch([{ type: 'event', name: 'opened', user: { id: 'gone' } }]), {
        key,
      })
      t.equal(allGone.status, 400, 'a batch of only suppressed items stores nothing')
      t.equal(allGone.body.error.details.results[0].error.code, 'USER_SUPPRESSED')

      // A22: with sealing on, the erasures topic names the person by pseudonym only; off, by the user id.
      const written = await readTopic(s.kafka, s.topics.erasures!)
      const records = await Promise.all(
        written.map(async (m) => (await s.projector!.deps.codec.decode(m.value!)).value),
      )
      t.ok(records.length >= 2, 'the request and its receipt are on the topic')
      t.same(
        [...new Set(records.map((e) => e.user_id))],
        [encrypt ? '' : 'gone'],
        encrypt ? 'no record holds the user id in clear' : 'the records hold the user id (the history does too)',
      )
      t.equal(
        written.some((m) => m.key!.toString().endsWith('\u0000gone')),
        !encrypt,
        encrypt ? 'nor does a record key' : 'the record key is the clear one',
      )
    },
  )

t.test('the account decides what is kept of the client IP', async (t) => {
  const s = await startServices(t)
  const { key, accountId } = await s.createKey({ type: 'live' })
  const send = (user: string) =>
    s.post(
      '/v1/event',
      { event: 'opened', user: { id: user }, context: { ip: '198.51.100.7' } },
      { key, headers: { 'user-agent': 'ua-test' } },
    )
  const stored = async (user: string) => {
    const [row] = await s.waitForRows<{ ip: string; context: string }>(
      `SELECT ip, context FROM ${s.database}.events WHERE user_id = '${user}'`,
      1,
    )
    return { ip: row!.ip, contextIp: JSON.parse(row!.context).ip }
  }
  t.equal((await send('u-full')).status, 200)
  t.same(await stored('u-full'), { ip: '127.0.0.1', contextIp: '127.0.0.1' }, 'full (the default): as received')

  await s.admin.setIpHandling(accountId, 'truncated')
  await waitUntil(
    async () =>
      (await send(`u-probe-${Date.now()}`)).status === 200 &&
      (await s.query(`SELECT 1 FROM ${s.database}.events WHERE ip = '127.0.0.0'`)).length > 0,
    15_000,
    'ingest applies the truncation',
  )
  t.equal((await send('u-truncated')).status, 200)
  t.same(
    await stored('u-truncated'),
    { ip: '127.0.0.0', contextIp: '127.0.0.0' },
    'truncated: the last octet zeroed, in the column and the context',
  )

  await s.admin.setIpHandling(accountId, 'none')
  await waitUntil(
    async () =>
      (await send(`u-probe-${Date.now()}`)).status === 200 &&
      (await s.query(`SELECT 1 FROM ${s.database}.events WHERE ip = '' AND user_id LIKE 'u-probe-%'`)).length > 0,
    15_000,
    'ingest applies none',
  )
  t.equal((await send('u-none')).status, 200)
  t.same(
    await stored('u-none'),
    { ip: '', contextIp: null },
    'none: no address anywhere, not even the one the client put in its context',
  )
})
