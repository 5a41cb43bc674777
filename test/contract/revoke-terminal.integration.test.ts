// Revoking a key is terminal (docs/security.md). Two concurrent requests -- a reactivate and a revoke --
// could leave the reactivate's record after the revoke's on the accounts topic; every reader then
// brought the revoked key back. Here that order is written directly: ingest must keep refusing the
// key, and an admin (the dashboard or the keys CLI) starting up writes the revocation again, so
// log compaction, which keeps only the last record of a key, cannot resurrect it.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { AccountsWriter } from '../../services/shared/src/accounts/accounts-log.js'
import { openAdmin } from '../../scripts/admin-context.js'

t.test('a record after a revocation does not bring the key back', async (t) => {
  const s = await startServices(t)
  const { key, keyId } = await s.createKey({ type: 'live', plan: 'orbit' })
  const event = { event: 'x', user: { id: 'u' } }
  t.equal((await s.post('/v1/event', event, { key })).status, 200, 'the key works')

  const current = s.admin.keys.get(keyId)!
  // What ingest's key table is given from the accounts topic, so the test knows the record it guards
  // against has arrived rather than hoping a pause was long enough.
  const keys = s.ingest!.deps.keys
  const applied: Array<{ status: string; updated_at: number }> = []
  const applyKey = keys.applyKey.bind(keys)
  keys.applyKey = (r) => {
    if (r.key_id === keyId) applied.push({ status: r.status, updated_at: r.updated_at })
    applyKey(r)
  }
  const producer = s.kafka.producer({ idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const writer = new AccountsWriter(producer, s.ingest!.deps.codec, s.topics.accounts)
  const now = Date.now()
  // The race's outcome on the log: the revoke, then a reactivate computed before it was seen.
  await writer.write([{ kind: 'ApiKey', value: { ...current, status: 'revoked', updated_at: now } }])
  await writer.write([{ kind: 'ApiKey', value: { ...current, status: 'active', updated_at: now + 1 } }])

  await waitUntil(
    () => applied.some((r) => r.status === 'active' && r.updated_at === now + 1),
    10_000,
    'the reactivate record to reach ingest after the revocation',
  )
  t.same(
    applied.slice(-2),
    [
      { status: 'revoked', updated_at: now },
      { status: 'active', updated_at: now + 1 },
    ],
    'ingest read the revoke, then the reactivate',
  )
  const after = await s.post('/v1/event', event, { key })
  t.equal(after.status, 401, 'still refused after the reactivate record arrived')
  t.equal(after.body.error.code, 'INVALID_API_KEY')

  // An admin starting up (dashboard, CLI) sees the key revoked and writes the revocation again.
  const a = await openAdmin(s.env)
  t.teardown(a.close)
  t.equal(a.admin.keys.get(keyId)?.status, 'revoked', 'the admin view keeps it revoked')
  await t.rejects(a.admin.setKeyStatus(keyId, 'active'), { code: 'CONFLICT' })
  const b = await openAdmin(s.env)
  t.teardown(b.close)
  t.equal(
    (b.admin as any).lastKeyRecord.get(keyId)?.status,
    'revoked',
    "the key's last record on the topic is the revocation again",
  )
})
