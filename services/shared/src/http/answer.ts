// An HTTP answer as a plain value (status, headers, body), made by the pure functions of this folder
// and written by one of two adapters: Koa's context (ingest, dashboard) or Node's response (the
// projector, whose /live stream writes the socket itself). Building the value apart from writing it
// lets the rules be tested without a server (docs/design.md H62).
import type { ServerResponse } from 'node:http'
import type { ParameterizedContext } from 'koa'

export interface Answer {
  status: number
  headers?: Record<string, string>
  /** A string is sent as is (with `type`); anything else as JSON. */
  body: unknown
  /** Content-Type of a string body. */
  type?: string
}

/** Writes the answer on a Koa context; Koa serializes an object body as JSON. */
export function setAnswer(ctx: ParameterizedContext, a: Answer): void {
  ctx.status = a.status
  if (a.headers) ctx.set(a.headers)
  if (a.type) ctx.type = a.type
  ctx.body = a.body
}

/** Writes the answer on a Node response, with the same Content-Type Koa would send. */
export function sendAnswer(res: ServerResponse, a: Answer): void {
  const text = typeof a.body === 'string'
  res.writeHead(a.status, {
    ...a.headers,
    'content-type': text ? (a.type ?? 'text/plain; charset=utf-8') : 'application/json; charset=utf-8',
  })
  res.end(text ? a.body : JSON.stringify(a.body))
}
