// The body-reading bounds of the ingest configuration (H24): defaults and the cross-field rules.
import t from 'tap'
import { loadIngestConfig } from './config.js'

t.test('body bounds: defaults, and budgets that could never hold a body at the limit are refused', async (t) => {
  const c = loadIngestConfig({})
  t.same(c.body, {
    readTimeoutMs: 30_000,
    maxInflateRatio: 100,
    inFlight: { perAccount: 20_000_000, perInstance: 200_000_000 },
  })
  t.same(c.server, { headersTimeoutMs: 10_000, maxConnections: 5_000 })
  t.throws(() => loadIngestConfig({ BODY_IN_FLIGHT_ACCOUNT_BYTES: '9999999' }), /BODY_IN_FLIGHT_ACCOUNT_BYTES/)
  t.throws(
    () => loadIngestConfig({ BODY_IN_FLIGHT_ACCOUNT_BYTES: '30000000', BODY_IN_FLIGHT_INSTANCE_BYTES: '20000000' }),
    /BODY_IN_FLIGHT_INSTANCE_BYTES/,
  )
  t.equal(
    loadIngestConfig({
      BATCH_BODY_LIMIT_BYTES: '1000000',
      BODY_IN_FLIGHT_ACCOUNT_BYTES: '1000000',
      BODY_IN_FLIGHT_INSTANCE_BYTES: '1000000',
    }).body.inFlight.perAccount,
    1_000_000,
  )
})
