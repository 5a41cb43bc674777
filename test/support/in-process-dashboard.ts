// The assembled dashboard app (http/app.ts createDashboardApp) in this process, against fakes of what
// it reads and writes: event-data queries answer from the test (or fail, as ClickHouse away does),
// and the accounts topic is a loopback: what the admin writes is decoded and applied to it at once,
// as its own follower would (the admin's logic is the real AccountsAdmin). The one place that builds
// the app for the in-process tier (H47); the stack tier keeps dashboard-harness.ts.
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Kafka, Producer } from '../../services/shared/src/kafka/client.js'
import { createDashboardApp } from '../../services/dashboard/src/http/app.js'
import { loadDashboardConfig } from '../../services/dashboard/src/config.js'
import { LiveStreams } from '../../services/dashboard/src/api/live-streams.js'
import type { DashboardQueries } from '../../services/dashboard/src/api/queries.js'
import type { DefinitionQueries } from '../../services/dashboard/src/api/definitions-queries.js'
import type { PersonQueries } from '../../services/dashboard/src/api/persons-queries.js'
import type { LiveHistory } from '../../services/dashboard/src/api/live-history.js'
import { HashGate, LoginThrottle, RequestThrottle, SignupThrottle } from '../../services/dashboard/src/auth/index.js'
import { AccountsAdmin } from '../../services/shared/src/accounts/accounts-admin.js'
import type { AccountsEntry } from '../../services/shared/src/accounts/accounts-log.js'
import { DEFAULT_PLANS } from '../../services/shared/src/accounts/plans.js'
import { createLogger } from '../../services/shared/src/log.js'
import { reportOf } from '../../services/shared/src/http/index.js'
import { Codec } from '../../schemas/codec.js'
import { DashboardClient } from './dashboard-client.js'
import { listen } from './in-process-ingest.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface InProcessDashboard {
  url: string
  admin: AccountsAdmin
  /** Event-data reads answer with these; `failing` makes them fail as an unreachable ClickHouse,
   *  `failure` with that error instead (a size bound of the server, a bug in a query builder). */
  data: { recentEvents: unknown[]; failing: boolean; failure?: unknown }
  client(): DashboardClient
}

const ROOT = join(import.meta.dirname, '..', '..')
const TOPICS = { events: 'ev', identifies: 'id', accounts: 'ac', dlq: 'dlq' }

export async function startInProcessDashboard(
  t: Teardown,
  env: Record<string, string> = {},
  opts: { hashGate?: HashGate } = {},
): Promise<InProcessDashboard> {
  const cfg = loadDashboardConfig({ SESSION_SECRET: randomBytes(24).toString('hex'), LOG_LEVEL: 'error', ...env })
  const log = createLogger('error', {}, () => undefined)
  let id = 1
  const codec = new Codec({
    register: async () => ({ id: id++ }),
    getSchema: async () => {
      throw new Error('no such schema')
    },
  } as any)
  await codec.register(TOPICS)
  // The accounts topic as a loopback: each record written is applied as the admin's follower would.
  let admin: AccountsAdmin | undefined
  const producer = {
    send: async ({ messages }: { messages: Array<{ value: Buffer }> }) => {
      for (const m of messages) {
        const d = await codec.decode(m.value)
        ;(admin as unknown as { apply(e: AccountsEntry): void }).apply({
          kind: d.name,
          value: d.value,
        } as AccountsEntry)
      }
    },
  }
  admin = new AccountsAdmin(undefined as unknown as Kafka, producer as unknown as Producer, codec, TOPICS.accounts, log)
  const data: InProcessDashboard['data'] = { recentEvents: [], failing: false }
  const read = async <T>(value: T): Promise<T> => {
    if (data.failure !== undefined) throw data.failure
    if (data.failing) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' })
    return value
  }
  const queries = {
    keysLastUsed: () => read(new Map<string, number>()),
    requestsThisMinute: () => read({ count: 0, windowStart: 0 }),
    eventsPerHour: () => read([]),
    recentEvents: () => read(data.recentEvents),
    topEvents: () => read([]),
    userProfiles: () => read([]),
    monthUsage: () => read({ live: 0, test: 0, emails: 0 }),
  } as unknown as DashboardQueries
  const definitions = { events: () => read([]), traits: () => read([]) } as unknown as DefinitionQueries
  const liveHistory = { recent: () => read(data.recentEvents) } as unknown as LiveHistory
  const persons = { list: () => read({ persons: [], next: null }) } as unknown as PersonQueries
  const app = createDashboardApp({
    cfg,
    log,
    admin,
    plans: DEFAULT_PLANS,
    queries,
    definitions,
    persons,
    liveHistory,
    liveStreams: new LiveStreams({ perSession: cfg.liveStreamsPerSession, stillSignedIn: () => true, sweepMs: 60_000 }),
    requests: new RequestThrottle(),
    throttle: new LoginThrottle({ maxFailures: cfg.login.maxFailures, windowMs: cfg.login.windowMs }),
    signupThrottle: new SignupThrottle(cfg.signup),
    hashGate: opts.hashGate ?? new HashGate({ running: 2, waiting: 64 }),
    publicDir: join(ROOT, 'services/dashboard/src/public'),
    ready: () => true,
    health: async () => reportOf({ clickhouse: data.failing ? 'unavailable' : 'ok' }),
  })
  const url = await listen(t, app)
  return { url, admin, data, client: () => new DashboardClient(url) }
}
