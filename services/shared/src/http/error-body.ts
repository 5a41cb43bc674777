// Shape 1 of docs/api.md's Errors section, the one JSON error body of every service: { success:
// false, error: { code, message, details? } }, from a typed error (services/shared/src/errors.ts:
// code, status, retriable, cause). Which third-party failures map to which error stays with each
// service (ingest's 413, the dashboard's body-parser errors); the body, the status and the
// Retry-After of a 503 are ruled here once.
import type { Answer } from './answer.js'

/** Seconds a 503 tells the client to wait when its error names no figure of its own. */
export const DEFAULT_RETRY_AFTER_S = 5

export interface RenderableError {
  code: string
  status: number
  message: string
  details?: Record<string, unknown>
  /** Headers the error brings (Retry-After, Connection: close); they win over the defaults. */
  headers?: Record<string, string>
}

export interface ErrorBody {
  success: false
  error: { code: string; message: string; details?: Record<string, unknown> }
}

export function errorBody(e: Pick<RenderableError, 'code' | 'message' | 'details'>): ErrorBody {
  const error: ErrorBody['error'] = { code: e.code, message: e.message }
  if (e.details !== undefined) error.details = e.details
  return { success: false, error }
}

/**
 * The answer of a refused or failed request. A 503 always says when to come back (our promise: no
 * 5xx but 503 with Retry-After), as does a 429 whose details name a wait: the error's own header,
 * else `details.retry_after_seconds`, else (503 only) the default.
 */
export function errorAnswer(e: RenderableError): Answer {
  const headers = { ...e.headers }
  if (!headers['Retry-After']) {
    const named = e.details?.retry_after_seconds
    const wait = typeof named === 'number' ? named : e.status === 503 ? DEFAULT_RETRY_AFTER_S : undefined
    if (wait !== undefined && (e.status === 503 || e.status === 429)) headers['Retry-After'] = String(wait)
  }
  return { status: e.status, headers, body: errorBody(e) }
}

/** What a failure that is no client's fault answers: no internals, only the code. */
export const INTERNAL_ERROR = { code: 'INTERNAL_ERROR', status: 500, message: 'Internal server error' } as const

/** 404 of a path no route serves. */
export function notFoundAnswer(message: string): Answer {
  return errorAnswer({ code: 'NOT_FOUND', status: 404, message })
}
