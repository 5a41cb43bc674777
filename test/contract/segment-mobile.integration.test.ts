// Mobile libraries cannot run here; what they send does (docs/api.md Segment-compatible API). The
// fixtures (test/support/segment-fixtures/) are bodies as analytics-kotlin and analytics-swift write
// their batch files (their own tests' shapes: EventsFileTests, AndroidContextCollectorTests; device
// context as each collects it), sent the way each sends them: analytics-kotlin POSTs `/v1/b` with
// `Content-Type: text/plain`, gzip and the key only in the body's writeKey (an anonymous user has
// `"userId": ""`); analytics-swift POSTs `/v1/b` as JSON, the key in the body too.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { startServices } from '../support/harness.js'
import { http } from '../support/contract.js'

const fixture = (name: string, key: string) =>
  readFileSync(new URL(`../support/segment-fixtures/${name}`, import.meta.url), 'utf8').replace('WRITE_KEY', key)

t.test("mobile libraries' bodies, as they send them, stored with their device context", async (t) => {
  const s = await startServices(t)
  const { key, accountId } = await s.createKey({ type: 'live', plan: 'orbit' })
  const db = s.database

  const kotlin = await http(s.ingestUrl, '/v1/b', {
    headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    body: gzipSync(fixture('analytics-kotlin-batch.json', key)),
  })
  t.equal(kotlin.status, 200, `analytics-kotlin: ${kotlin.text}`)
  t.same(
    kotlin.body.data.results.map((r: { success: boolean }) => r.success),
    [true, true, true, true, true],
    'every message of the kotlin batch',
  )
  const swift = await http(s.ingestUrl, '/v1/b', {
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: fixture('analytics-swift-batch.json', key),
  })
  t.equal(swift.status, 200, `analytics-swift: ${swift.text}`)
  t.equal(swift.body.data.processed_count, 2)

  const evs = await s.waitForRows<{
    event: string
    user_id: string
    anonymous_id: string
    message_id: string
    context: string
    properties: string
  }>(
    `SELECT event, user_id, anonymous_id, message_id, context, properties FROM ${db}.events FINAL WHERE account_id = '${accountId}' ORDER BY message_id`,
    5,
  )
  t.same(
    evs.map((e) => [e.event, e.user_id, e.anonymous_id, e.message_id]),
    [
      ['Order Completed', 'ios-user-1', 'A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D', '0A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9'],
      [
        'screen_viewed',
        'A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D',
        'A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D',
        'F0E1D2C3-B4A5-4968-8776-655443322110',
      ],
      ['clicked', 'android-anon-1', 'android-anon-1', 'kotlin-0001'],
      ['screen_viewed', 'android-anon-1', 'android-anon-1', 'kotlin-0002'],
      ['$group', 'android-user-1', 'android-anon-1', 'kotlin-0004'],
    ],
    'an empty userId is anonymous; names, ids and messageIds as sent',
  )
  const android = JSON.parse(evs[2]!.context)
  t.match(
    android,
    {
      device: { manufacturer: 'robolectric', type: 'android' },
      os: { name: 'Android', version: '12' },
      screen: { width: 320 },
      network: { wifi: false },
      locale: 'en-US',
      timezone: 'America/Los_Angeles',
      library: { name: 'analytics-kotlin' },
    },
    'android device context in context JSON',
  )
  const ios = JSON.parse(evs[1]!.context)
  t.match(
    ios,
    {
      device: { model: 'iPhone15,2' },
      os: { name: 'iOS', version: '17.4' },
      app: { version: '1.0' },
      screen: { height: 852 },
      network: { wifi: true },
      library: { name: 'analytics-swift' },
    },
    'iOS device context in context JSON',
  )
  t.same(
    JSON.parse(evs[1]!.properties),
    { name: 'Home', category: 'Main', tab: 'feed' },
    "a swift screen call's name and category",
  )
  const map = await s.waitForRows<{ id: string; person_id: string }>(
    `SELECT id, person_id FROM ${db}.identity_map WHERE account_id = '${accountId}' ORDER BY id`,
    2,
  )
  t.same(
    map,
    [
      { id: 'A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D', person_id: 'ios-user-1' },
      { id: 'android-anon-1', person_id: 'android-user-1' },
    ],
    "both devices' anonymous ids merged into their users",
  )
})
