// The assembled ingest app (http/app.ts createIngestApp) and its admin app, in this process, against
// fakes at the app's own boundary: the appender (Kafka's side of A4: append resolves = stored), the
// key table, the limiters and the clock. No Kafka client, no registry, no ClickHouse: the HTTP
// contract of docs/api.md runs in milliseconds (the middle tier), while the stack tier
// (`*.integration.test.ts`) keeps what needs real servers. This is the one place that builds the app
// for these tests: if createIngestApp's dependencies change, adapt them here.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import type Koa from 'koa'
import { createIngestApp, type Appender, type IngestDeps } from '../../services/ingest/src/http/app.js'
import { createAdminApp } from '../../services/ingest/src/http/admin-app.js'
import { IngestMetrics } from '../../services/ingest/src/http/metrics.js'
import { RefusalAggregator } from '../../services/ingest/src/refusals/refusal-aggregator.js'
import { readinessOf } from '../../services/ingest/src/http/readiness.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { MemoryLimits, localLimiters } from '../../services/ingest/src/limits/index.js'
import type { OutRecord } from '../../services/ingest/src/kafka/record-appender.js'
import { KeyTable } from '../../services/shared/src/accounts/key-table.js'
import { DEFAULT_PLANS } from '../../services/shared/src/accounts/plans.js'
import { hashKey, maskKey } from '../../services/shared/src/accounts/key-hash.js'
import { createLogger } from '../../services/shared/src/log.js'
import type { Codec } from '../../schemas/codec.js'
import type { KeyType } from '../../schemas/records.js'
import { http, unknownKey, type RawResponse } from './contract.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

/** A fixed instant in the middle of a minute and a month: no test straddles a window (H3, H5). */
export const FIXED_NOW = Date.UTC(2025, 5, 15, 12, 0, 30)

export interface InProcessIngest {
  url: string
  adminUrl: string
  /** Each append the app made (one per request that reached Kafka), decoded by the fake codec. */
  appended: OutRecord[][]
  /** The time the app's limiters and validation read; tests move it. */
  clock: { now: number }
  /** What the error middleware recorded for accounts (H65); tests drain it. */
  refusals: RefusalAggregator
  /** Makes the next appends fail as Kafka not taking the records (A4), or succeed again with undefined. */
  failAppends(err: Error | undefined): void
  /** Makes the codec throw (a programmer error: 500, docs/api.md), or encode again with undefined. */
  failEncoding(err: Error | undefined): void
  /** H55: user ids the account erased with suppression, as the erasures topic would tell ingest. */
  suppress(accountId: string, userId: string): void
  /** The instance is starting or draining (503, H36 readiness) or taking requests. */
  setAccepting(on: boolean): void
  setDraining(on: boolean): void
  /** Adds an active account (if new) and a key of `type`; returns the secret. */
  addKey(opts?: { account?: string; type?: KeyType; plan?: string; status?: 'active' | 'revoked' }): string
  /** The account of a secret addKey returned. */
  accountOf(secret: string): string
  request(path: string, init?: Parameters<typeof http>[2]): Promise<RawResponse>
  /** POST with a key and a JSON body (a string is sent as is). */
  post(path: string, body: unknown, key?: string, headers?: Record<string, string>): Promise<RawResponse>
}

/** The record values the fake codec writes: the schema name and the record, as JSON. */
export function decodedValue(r: OutRecord): { name: string; value: Record<string, unknown> } {
  return JSON.parse(Buffer.from(r.value as Uint8Array).toString('utf8'))
}

export async function startInProcessIngest(t: Teardown, env: Record<string, string> = {}): Promise<InProcessIngest> {
  const cfg = loadIngestConfig({ LOG_LEVEL: 'error', ...env })
  const clock = { now: FIXED_NOW }
  const keys = new KeyTable({ plans: DEFAULT_PLANS })
  const appended: OutRecord[][] = []
  let appendError: Error | undefined
  let encodeError: Error | undefined
  const suppressed = new Map<string, Set<string>>()
  let accepting = true
  let draining = false
  const appender: Appender = {
    async append(records) {
      if (appendError) throw appendError
      appended.push(records)
    },
  }
  // The pipeline uses only encode; JSON keeps what was written readable by the tests.
  const codec = {
    encode: (name: string, value: unknown) => {
      if (encodeError) throw encodeError
      return Buffer.from(JSON.stringify({ name, value }))
    },
  } as unknown as Codec
  const log = createLogger('error', {}, () => undefined)
  const refusals = new RefusalAggregator(() => clock.now)
  const metrics = new IngestMetrics(
    {
      queuedRecords: () => 0,
      appenderStats: () => ({
        flushes: 0,
        records: 0,
        failures: 0,
        timeouts: 0,
        retired: 0,
        shed: 0,
        expired: 0,
        refused: 0,
      }),
      ready: () => accepting && !draining,
      accountsSilenceMs: () => 0,
    },
    { processMetrics: false },
  )
  const app = createIngestApp({
    cfg,
    keys,
    limits: new MemoryLimits(localLimiters(cfg.usageInFlightMs)),
    codec,
    appender,
    log,
    now: () => clock.now,
    metrics,
    accepting: () => accepting && !draining,
    draining: () => draining,
    refusals,
    erasures: { suppressedOf: (accountId: string) => suppressed.get(accountId) } as IngestDeps['erasures'],
  })
  const readiness = () =>
    readinessOf({
      appender: {
        health: () => ({
          ready: accepting,
          producersUp: accepting ? 1 : 0,
          queuedRecords: 0,
          reason: accepting ? undefined : 'starting',
        }),
      },
      accounts: { silenceMs: () => 0 },
      draining: () => draining,
    })
  const admin = createAdminApp({ readiness, metrics, log })
  const url = await listen(t, app)
  const adminUrl = await listen(t, admin)

  const accounts = new Set<string>()
  const accountOfSecret = new Map<string, string>()
  const request: InProcessIngest['request'] = (path, init) => http(url, path, init)
  return {
    url,
    adminUrl,
    appended,
    clock,
    refusals,
    failAppends: (err) => void (appendError = err),
    failEncoding: (err) => void (encodeError = err),
    suppress(accountId, userId) {
      if (!suppressed.has(accountId)) suppressed.set(accountId, new Set())
      suppressed.get(accountId)!.add(userId)
    },
    setAccepting: (on) => void (accepting = on),
    setDraining: (on) => void (draining = on),
    addKey(o = {}) {
      const accountId = o.account ?? `acct_${randomBytes(4).toString('hex')}`
      if (!accounts.has(accountId)) {
        keys.applyAccount({
          account_id: accountId,
          name: accountId,
          plan: o.plan ?? 'hobby',
          status: 'active',
          owner_email: null,
          password_hash: null,
          created_at: 0,
          updated_at: 0,
        })
        accounts.add(accountId)
      }
      const type = o.type ?? 'live'
      const secret = unknownKey(type)
      keys.applyKey({
        key_id: `key_${randomBytes(4).toString('hex')}`,
        account_id: accountId,
        key_hash: hashKey(secret),
        masked: maskKey(secret),
        name: 'test key',
        type,
        status: o.status ?? 'active',
        created_at: 0,
        updated_at: 0,
      })
      accountOfSecret.set(secret, accountId)
      return secret
    },
    accountOf: (secret) => accountOfSecret.get(secret)!,
    request,
    post(path, body, key, headers = {}) {
      const h: Record<string, string> = {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...headers,
      }
      return request(path, {
        method: 'POST',
        headers: h,
        body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
      })
    },
  }
}

/** Serves `app.callback()` (koa's own way of testing an app) on a kernel-chosen loopback port until the test ends. */
export async function listen(t: Teardown, app: Koa<any>): Promise<string> {
  const server: Server = createServer(app.callback())
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
