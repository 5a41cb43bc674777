// The ingest service's client-facing errors (docs/api.md Errors), on the shared base (code, status,
// retriable, cause). The HTTP layer renders them in one place, the error middleware in
// http/error-middleware.ts, as {success:false, error:{code, message, details?}}.
import { AppError } from '../../shared/src/errors.js'
import { errorBody } from '../../shared/src/http/index.js'

export type ErrorCode =
  | 'MISSING_AUTH_HEADER'
  | 'INVALID_KEY_FORMAT'
  | 'INVALID_API_KEY'
  | 'RATE_LIMIT_EXCEEDED'
  | 'EVENT_RATE_LIMIT_EXCEEDED'
  | 'MONTHLY_EVENT_LIMIT_EXCEEDED'
  | 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'JSON_TOO_COMPLEX'
  | 'BODY_BYTES_IN_FLIGHT_EXCEEDED'
  | 'REQUEST_TIMEOUT'
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'USER_SUPPRESSED'
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
    return errorBody(this)
  }
}

// A refusal while the body is still arriving: the rest is never read, so the connection cannot carry
// another request; Node closes it once the answer is written (H24).
const CLOSE = { Connection: 'close' }

export const errors = {
  missingAuth: () =>
    new ServiceError(
      'MISSING_AUTH_HEADER',
      401,
      'Missing or invalid Authorization header: expected "Bearer <API_KEY>"',
    ),
  invalidKeyFormat: () => new ServiceError('INVALID_KEY_FORMAT', 401, 'API key must start with svc_live_ or svc_test_'),
  invalidKey: () => new ServiceError('INVALID_API_KEY', 401, 'Invalid or inactive API key'),
  unsupportedMediaType: () => new ServiceError('UNSUPPORTED_MEDIA_TYPE', 415, 'Content-Type must be application/json'),
  /** A Content-Encoding other than gzip, deflate, br or identity (H24): the message names it. */
  unsupportedEncoding: (coding: string) =>
    new ServiceError(
      'UNSUPPORTED_MEDIA_TYPE',
      415,
      `Content-Encoding ${JSON.stringify(coding.slice(0, 100))} is not supported; send gzip, deflate, br or no Content-Encoding`,
      {
        content_encoding: coding.slice(0, 100),
        supported: ['gzip', 'deflate', 'br', 'identity'],
      },
    ),
  payloadTooLarge: (limitBytes: number) =>
    new ServiceError(
      'PAYLOAD_TOO_LARGE',
      413,
      `Request body exceeds ${limitBytes} bytes`,
      { limit_bytes: limitBytes },
      { headers: CLOSE },
    ),
  /** H24: a compressed body that inflates more than `maxRatio` times its compressed size (past the allowance). */
  inflateRatio: (limitBytes: number, maxRatio: number) =>
    new ServiceError(
      'PAYLOAD_TOO_LARGE',
      413,
      `Compressed request body inflates more than ${maxRatio} times its size`,
      { limit_bytes: limitBytes, max_inflate_ratio: maxRatio },
      { headers: CLOSE },
    ),
  /** H25: more JSON values than any valid request of this kind can hold. */
  jsonTooComplex: (path: string, maxValues: number) =>
    new ServiceError(
      'JSON_TOO_COMPLEX',
      400,
      `Request body holds more JSON values ${path ? `under ${path}` : 'outside the events'} than a valid request can (at most ${maxValues})`,
      { path, max_values: maxValues },
    ),
  /** H24: the account's requests already hold their share of body bytes being read. */
  bodyBytesInFlight: (limitBytes: number) =>
    new ServiceError(
      'BODY_BYTES_IN_FLIGHT_EXCEEDED',
      429,
      `The account's requests are already sending ${limitBytes} bytes of bodies; retry after Retry-After`,
      { limit_bytes: limitBytes, retry_after_seconds: 1 },
      {
        retriable: true,
        headers: { 'Retry-After': '1', ...CLOSE },
      },
    ),
  /** H24: all requests of this instance already hold its body bytes; the rest of this body is never read. */
  bodyBytesInstanceFull: () =>
    errors.unavailable(
      1,
      undefined,
      'This instance is reading as many request bodies as it can hold; retry later',
      CLOSE,
    ),
  /** H24: the body did not arrive within BODY_READ_TIMEOUT_MS. */
  requestTimeout: (timeoutMs: number) =>
    new ServiceError(
      'REQUEST_TIMEOUT',
      408,
      `Request body did not arrive within ${timeoutMs} ms`,
      { timeout_ms: timeoutMs },
      { retriable: true, headers: CLOSE },
    ),
  /** H37: one user's records in the request are larger than the event log takes in one write. */
  recordsTooLarge: (limitBytes: number | undefined, cause?: unknown) =>
    new ServiceError(
      'PAYLOAD_TOO_LARGE',
      413,
      `The request's records for one user exceed what the event log takes in one write${limitBytes ? ` (${limitBytes} bytes)` : ''}; send them in smaller requests`,
      limitBytes ? { limit_bytes: limitBytes } : undefined,
      { cause },
    ),
  invalidJson: (why?: string) =>
    new ServiceError(
      'INVALID_JSON',
      400,
      why ? `Request body is not valid JSON: ${why}` : 'Request body is not valid JSON',
    ),
  validation: (details: Record<string, unknown>, message = 'Request validation failed') =>
    new ServiceError('VALIDATION_ERROR', 400, message, details),
  /** H55: the account erased this user and asked that new data about them be refused. */
  userSuppressed: () =>
    new ServiceError(
      'USER_SUPPRESSED',
      403,
      'This user was erased by the account, which asked that new data about them be refused; nothing was stored',
    ),
  notFound: () => new ServiceError('NOT_FOUND', 404, 'No such endpoint'),
  methodNotAllowed: (allowed: string[]) =>
    new ServiceError('METHOD_NOT_ALLOWED', 405, `Method not allowed; use ${allowed.join(', ')}`, undefined, {
      headers: { Allow: allowed.join(', ') },
    }),
  unavailable: (
    retryAfterSeconds: number,
    cause?: unknown,
    message = 'Service temporarily unavailable; retry later',
    headers: Record<string, string> = {},
  ) =>
    new ServiceError('SERVICE_UNAVAILABLE', 503, message, undefined, {
      cause,
      retriable: true,
      headers: { 'Retry-After': String(retryAfterSeconds), ...headers },
    }),
}
