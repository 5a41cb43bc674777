// The one error base of every service (docs/design.md "Code layout"): a typed value with `code` (stable, for logs, the
// DLQ reason and HTTP bodies), `status` (the HTTP status it maps to, 500 when it is not an answer
// to a client), `retriable` (whether waiting and trying again can help) and `cause`. Each service
// derives its own errors from it; each HTTP service renders them in one error middleware.

export interface AppErrorOptions {
  /** HTTP status the error answers with; 500 unless it is a client-facing error. */
  status?: number
  retriable: boolean
  cause?: unknown
}

export abstract class AppError extends Error {
  abstract readonly code: string
  readonly status: number
  readonly retriable: boolean

  constructor(message: string, options: AppErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.status = options.status ?? 500
    this.retriable = options.retriable
  }
}

/**
 * Whether a failure is worth waiting out and trying again. Programmer errors never are; an
 * AppError says so itself; third-party errors that carry `retriable` (kafkajs) are taken at their
 * word; anything else (a refused connection, a timeout) is assumed to pass.
 */
export function isRetriable(err: unknown): boolean {
  if (err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError) return false
  if (err instanceof AppError) return err.retriable
  const r = (err as { retriable?: unknown } | null | undefined)?.retriable
  return r === undefined ? true : Boolean(r)
}

/** An ad-hoc failure with a code, for places that have no error class of their own. */
export class CodedError extends AppError {
  constructor(
    readonly code: string,
    message: string,
    options: AppErrorOptions,
  ) {
    super(message, options)
  }
}
