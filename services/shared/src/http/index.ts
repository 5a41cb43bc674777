// The HTTP skeleton every service uses (docs/design.md H62): health answers, the metrics endpoint and
// the error body, as plain answers written by a Koa or a Node adapter.
export { type Answer, setAnswer, sendAnswer } from './answer.js'
export {
  type RenderableError,
  type ErrorBody,
  errorBody,
  errorAnswer,
  notFoundAnswer,
  INTERNAL_ERROR,
  DEFAULT_RETRY_AFTER_S,
} from './error-body.js'
export {
  type Check,
  type Checks,
  type ReadinessReport,
  liveAnswer,
  readinessAnswer,
  checksOf,
  reportOf,
  failingChecks,
  NOT_READY_RETRY_AFTER_S,
} from './health.js'
export { type MetricsSource, metricsAnswer } from './metrics.js'
export { type ServiceRoutes, serviceAnswer, serviceRoutes } from './service-routes.js'
