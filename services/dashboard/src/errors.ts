// The dashboard's client-facing errors, on the shared base (code, status, retriable, cause);
// rendered once, in the error middleware of http/app.ts, as { success: false, error: { code,
// message, details? } }.
import { AppError } from '../../shared/src/errors.js'

export class DashboardError extends AppError {
  constructor(
    readonly code: string,
    status: number,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, { status, retriable: status === 503, cause: options?.cause })
  }
}

export const unauthorized = () => new DashboardError('UNAUTHORIZED', 401, 'Sign in first')
export const invalidCredentials = () => new DashboardError('INVALID_CREDENTIALS', 401, 'Wrong email or password')
/** 403, not 401: the session is fine, and the page must not treat it as signed out. */
export const wrongCurrentPassword = () =>
  new DashboardError('INVALID_CREDENTIALS', 403, 'The current password is wrong', { field: 'current_password' })
export const forbidden = (reason: string) => new DashboardError('CSRF_REJECTED', 403, `Request refused: ${reason}`)
export const notFound = (what: string) => new DashboardError('NOT_FOUND', 404, `${what} not found`)
export const conflict = (message: string) => new DashboardError('CONFLICT', 409, message)
export const validation = (message: string, details?: Record<string, unknown>) =>
  new DashboardError('VALIDATION_ERROR', 400, message, details)
export const tooManyAttempts = (retryAfterSeconds: number, what = 'failed sign-ins') =>
  new DashboardError('TOO_MANY_ATTEMPTS', 429, `Too many ${what}; try again in ${retryAfterSeconds} seconds`, {
    retry_after_seconds: retryAfterSeconds,
  })
/** 503; Retry-After is `retryAfterSeconds` (renderErrors sends a default when none is given). */
export const unavailable = (what: string, cause?: unknown, retryAfterSeconds?: number) =>
  new DashboardError(
    'SERVICE_UNAVAILABLE',
    503,
    `${what} is unavailable`,
    retryAfterSeconds ? { retry_after_seconds: retryAfterSeconds } : undefined,
    { cause },
  )
export const queryTooLarge = (what: string, cause?: unknown) =>
  new DashboardError(
    'QUERY_TOO_LARGE',
    400,
    `Event data (${what}): the query would read more than the dashboard allows; narrow the time range or add a filter`,
    undefined,
    { cause },
  )
export const keyLimit = (message: string, limit: number) =>
  new DashboardError('KEY_LIMIT_REACHED', 409, message, { limit })
export const tooManyStreams = (retryAfterSeconds: number, whose: string) =>
  new DashboardError(
    'TOO_MANY_STREAMS',
    429,
    `Too many live streams open for ${whose}; close one or try again in ${retryAfterSeconds} seconds`,
    { retry_after_seconds: retryAfterSeconds },
  )
export const tooManyRequests = (retryAfterSeconds: number, what: string) =>
  new DashboardError('RATE_LIMIT_EXCEEDED', 429, `Too many ${what}; try again in ${retryAfterSeconds} seconds`, {
    retry_after_seconds: retryAfterSeconds,
  })
export const busy = (cause?: unknown) =>
  new DashboardError(
    'SERVICE_UNAVAILABLE',
    503,
    'Too many sign-ins in progress; try again in a moment',
    { retry_after_seconds: 1 },
    { cause },
  )
