// Why items were not stored. Every failure reaches the client's onError callback as one of these,
// with the API's error code (docs/api.md Errors, H8-H11) or one of the SDK's own codes below.

/** Codes the SDK itself uses, beside the API's (VALIDATION_ERROR, INVALID_API_KEY, ...). */
export type SdkErrorCode =
  /** No HTTP answer (connection refused or reset, DNS, timeout); retried. */
  | 'NETWORK_ERROR'
  /** The bounded queue was full; the item was dropped before it was sent. */
  | 'QUEUE_FULL'
  /** The item alone is larger than maxBatchBytes, so no batch can carry it. */
  | 'ITEM_TOO_LARGE'
  /** track() or identify() after shutdown(). */
  | 'CLIENT_CLOSED'
  /** shutdown() timed out with these items still unacknowledged (they may or may not be stored). */
  | 'SHUTDOWN_TIMEOUT'
  /** An HTTP answer the SDK cannot read (not the API's error shape). */
  | 'UNEXPECTED_RESPONSE'

export class TrackingError extends Error {
  override readonly name = 'TrackingError'
  constructor(
    /** The API's error code (e.g. VALIDATION_ERROR, RATE_LIMIT_EXCEEDED) or an SdkErrorCode. */
    readonly code: string,
    message: string,
    readonly opts: {
      /** HTTP status of the answer, when there was one. */
      status?: number
      /** Whether the failure was transient (it was retried until maxRetries ran out). */
      retriable?: boolean
      /** Attempts made for the batch (1 when not retried). */
      attempts?: number
      details?: Record<string, unknown>
      cause?: unknown
    } = {},
  ) {
    super(message, { cause: opts.cause })
  }
  /** The same error, noting how many attempts were made. */
  withAttempts(attempts: number): TrackingError {
    return new TrackingError(this.code, this.message, { ...this.opts, attempts })
  }
  get status(): number | undefined {
    return this.opts.status
  }
  get retriable(): boolean {
    return this.opts.retriable ?? false
  }
  get attempts(): number {
    return this.opts.attempts ?? 1
  }
  get details(): Record<string, unknown> | undefined {
    return this.opts.details
  }
}
