// The ingest service's client-facing errors (docs/api.md Errors), on the shared base (code, status,
// retriable, cause). The HTTP layer renders them in one place, the error middleware in
// http/error-middleware.ts, as {success:false, error:{code, message, details?}}.
import { AppError } from '../../shared/src/errors.js'

export type ErrorCode =
  | 'MISSING_AUTH_HEADER'
  | 'INVALID_KEY_FORMAT'
  | 'INVALID_API_KEY'
  | 'RATE_LIMIT_EXCEEDED'
  | 'EVENT_RATE_LIMIT_EXCEEDED'
  | 'MONTHLY_EVENT_LIMIT_EXCEEDED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR'

export class ServiceError extends AppError {
  constructor(
    readonly code: ErrorCode,
    status: number,
    message: string,
    readonly details?: Record<string, unknown>,
    options: { cause?: unknown; retriable?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message, { status, retriable: options.retriable ?? false, cause: options.cause })
    this.headers = options.headers ?? {}
  }
  readonly headers: Record<string, string>

  /** Shape 1 of docs/api.md's Errors section. */
  toBody() {
    const error: { code: ErrorCode; message: string; details?: Record<string, unknown> } = {
      code: this.code,
      message: this.message,
    }
    if (this.details !== undefined) error.details = this.details
    return { success: false as const, error }
  }
}

export const errors = {
  missingAuth: () =>
    new ServiceError('MISSING_AUTH_HEADER', 401, 'Missing or invalid Authorization header: expected "Bearer <API_KEY>"'),
  invalidKeyFormat: () =>
    new ServiceError('INVALID_KEY_FORMAT', 401, 'API key must start with svc_live_ or svc_test_'),
  invalidKey: () => new ServiceError('INVALID_API_KEY', 401, 'Invalid or inactive API key'),
  unsupportedMediaType: () =>
    new ServiceError('UNSUPPORTED_MEDIA_TYPE', 415, 'Content-Type must be application/json'),
  payloadTooLarge: (limitBytes: number) =>
    new ServiceError('PAYLOAD_TOO_LARGE', 413, `Request body exceeds ${limitBytes} bytes`, { limit_bytes: limitBytes }),
  /** H37: one user's records in the request are larger than the event log takes in one write. */
  recordsTooLarge: (limitBytes: number | undefined, cause?: unknown) =>
    new ServiceError('PAYLOAD_TOO_LARGE', 413, `The request's records for one user exceed what the event log takes in one write${limitBytes ? ` (${limitBytes} bytes)` : ''}; send them in smaller requests`,
      limitBytes ? { limit_bytes: limitBytes } : undefined, { cause }),
  invalidJson: (why?: string) =>
    new ServiceError('INVALID_JSON', 400, why ? `Request body is not valid JSON: ${why}` : 'Request body is not valid JSON'),
  validation: (details: Record<string, unknown>, message = 'Request validation failed') =>
    new ServiceError('VALIDATION_ERROR', 400, message, details),
  notFound: () => new ServiceError('NOT_FOUND', 404, 'No such endpoint'),
  methodNotAllowed: (allowed: string[]) =>
    new ServiceError('METHOD_NOT_ALLOWED', 405, `Method not allowed; use ${allowed.join(', ')}`, undefined, {
      headers: { Allow: allowed.join(', ') },
    }),
  unavailable: (retryAfterSeconds: number, cause?: unknown) =>
    new ServiceError('SERVICE_UNAVAILABLE', 503, 'Service temporarily unavailable; retry later', undefined, {
      cause,
      retriable: true,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
}
