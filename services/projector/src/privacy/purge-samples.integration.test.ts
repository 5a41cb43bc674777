// The erasure purge removes the refused samples naming the person (U21 of docs/design.md): their
// bodies are text, so the person is found by the user id in it, raw or JSON-escaped.
import t from 'tap'
import { createTestDatabase, queryRows } from '../../../../test/support/clickhouse-helpers.js'
import { refusalRows } from '../refusals/refusal-rows.js'
import { purgePeople } from './purge.js'

const ACCOUNT = 'acc_purge_samples'
const ERASED = 'user "quoted" 7'
const sample = (body: string, at: number) => ({
  environment: 'live',
  code: 'VALIDATION_ERROR',
  endpoint: '/v1/batch',
  at,
  message: 'refused',
  body,
})

t.test('the person’s refused samples are deleted, other samples of the account and other accounts kept', async (t) => {
  const { client, database } = await createTestDatabase({ prefix: 'purge_samples', t })
  const now = Date.now()
  const record = (account_id: string, bodies: string[]) => ({
    account_id,
    instance_id: 'ingest-a',
    drained_at: now,
    counts: [],
    samples: bodies.map((b, i) => sample(b, now - 1000 + i)),
  })
  const escaped = JSON.stringify(ERASED)
  const rows = [
    ...refusalRows(record(ACCOUNT, [`{"userId":${escaped},"event":1}`, `not json ${ERASED}`, '{"userId":"other"}']))
      .samples,
    ...refusalRows(record('acc_other', [`{"userId":${escaped}}`])).samples,
  ]
  await client.insert({ table: `${database}.refused_samples`, values: rows, format: 'JSONEachRow' })

  const result = await purgePeople(client, database, [{ account_id: ACCOUNT, user_id: ERASED }], { pollMs: 50 })

  t.ok(result.tables.includes('refused_samples'))
  t.equal(result.found.refused_samples, 2)
  const left = await queryRows<{ account_id: string; body: string }>(
    client,
    `SELECT account_id, body FROM ${database}.refused_samples FINAL ORDER BY account_id, body`,
  )
  t.same(left, [
    { account_id: 'acc_other', body: `{"userId":${escaped}}` },
    { account_id: ACCOUNT, body: '{"userId":"other"}' },
  ])
})
