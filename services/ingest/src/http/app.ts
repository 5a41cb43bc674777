// The ingest HTTP surface (docs/api.md Endpoints), wiring only. A request passes error-middleware.ts
// (renders every error, adds rate-limit headers), cors-middleware.ts (H15), then event-routes.ts,
// which runs H2's steps in order: authenticate.ts (key, per-minute limit), json-body.ts (type, size,
// JSON), validation, pipeline/accept-items.ts (per-second and monthly limits, records, Kafka), and
// the answer (segment/ the same for Segment's API); 200 is sent once Kafka has the records (A4).
import type { RecordSealer } from '../privacy/record-sealer.js'
import Koa from 'koa'
import Router from '@koa/router'
import type { IngestConfig } from '../config.js'
import type { Logger } from '../../../shared/src/log.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { KeyTable } from '../../../shared/src/accounts/key-table.js'
import { errors } from '../errors.js'
import { BodyBytesInFlight, monotonicClock, type Limits } from '../limits/index.js'
import type { ErasureSet } from '../../../shared/src/privacy/erasure-set.js'
import type { Appender } from '../pipeline/accept-items.js'
import { EventIds } from '../records/index.js'
import type { State } from './context.js'
import { errorMiddleware } from './error-middleware.js'
import { cors } from './cors-middleware.js'
import { eventRoutes } from './event-routes.js'
import { segmentRoutes } from '../segment/index.js'
import { addPublicRoutes } from './health-routes.js'
import type { IngestMetrics } from './metrics.js'
import type { RefusalAggregator } from '../refusals/refusal-aggregator.js'

export type { Appender } from '../pipeline/accept-items.js'

export interface IngestDeps {
  cfg: IngestConfig
  keys: KeyTable
  /** In memory, or with REDIS_URL those of every instance (chosen in main.ts: limits/choose-limits.ts). */
  limits: Limits
  codec: Codec
  appender: Appender
  log: Logger
  now?: () => number
  /** Prometheus metrics (counted here, served by the admin listener: admin-app.ts). */
  metrics?: IngestMetrics
  /** False until the service has its dependencies (and again while draining): /v1/* answers 503. */
  accepting?: () => boolean
  /** True once the service is shutting down: answers ask clients to reconnect elsewhere. */
  draining?: () => boolean
  /** Body bytes being read, per account and instance (H24); made from cfg.body when not given. */
  bodyBytes?: BodyBytesInFlight
  /** The process's event id maker (H77); made here when not given. */
  eventIds?: EventIds
  /** H55: the erasures in force (followed from the erasures topic); suppressed users are refused. */
  erasures?: ErasureSet
  /** H65: refusals of authenticated requests, aggregated per account for the refusals topic (H66). */
  refusals?: RefusalAggregator
  /** A15: seals personal fields (PRIVACY_ENCRYPT on). */
  sealer?: RecordSealer
}

const API_PATHS = new Set(['/v1/event', '/v1/events'])

export function createIngestApp(d: IngestDeps): Koa<State> {
  // Windows never go back with a wall clock that steps back (limits/monotonic-clock.ts).
  const now = d.now ?? monotonicClock()
  const app = new Koa<State>({ proxy: false })
  const router = new Router<State>()
  const { cfg } = d
  const inFlight = d.bodyBytes ?? new BodyBytesInFlight(cfg.body.inFlight)
  // One for both route sets: the UUIDv7s of one process sort in creation order (H12, H77).
  const eventIds = d.eventIds ?? new EventIds()

  app.use(
    errorMiddleware({
      trustedProxies: cfg.trustedProxies,
      ipRequestsPerMinute: cfg.ipRequestsPerMinute,
      limits: d.limits,
      log: d.log,
      now,
      metrics: d.metrics,
      draining: d.draining,
      refusals: d.refusals,
    }),
  )
  app.use(cors(cfg.corsOrigins))
  app.use(eventRoutes({ ...d, now, inFlight, eventIds }))
  app.use(segmentRoutes({ ...d, now, inFlight, eventIds }))
  addPublicRoutes(router)
  app.use(router.routes())
  app.use(async (ctx, next) => {
    // Known path, wrong method: 405 with Allow (router.allowedMethods would answer without our body).
    if (API_PATHS.has(ctx.path)) throw errors.methodNotAllowed(['POST', 'OPTIONS'])
    await next()
  })
  app.on('error', (err) => d.log.error('koa error', { err }))
  return app
}
