// A client that sends part of a request and then stops, as a slow or hostile client does (H24): raw
// TCP, so nothing finishes the request for it. It reports what the server did: answered (status,
// headers, JSON body) and/or closed the connection, or neither before the test gave up.
import { connect } from 'node:net'

export interface StalledOutcome {
  /** The status the server answered with, 0 if none. */
  status: number
  headers: Record<string, string>
  body: any
  /** The server closed (or reset) the connection. */
  closed: boolean
}

/**
 * Writes `head` (request line and headers, as sent: end it with a blank line for a complete head)
 * and `body`, then sends nothing more. Resolves when the server closes the connection, or after
 * `giveUpMs` with `closed: false` -- the outcome a server without deadlines gives.
 */
export function stalledRequest(
  baseUrl: string,
  head: string,
  body: Buffer = Buffer.alloc(0),
  giveUpMs = 30_000,
): Promise<StalledOutcome> {
  const url = new URL(baseUrl)
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = connect(Number(url.port), url.hostname)
    let settled = false
    const settle = (closed: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ ...parseResponse(Buffer.concat(chunks).toString('utf8')), closed })
    }
    const timer = setTimeout(() => settle(false), giveUpMs)
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('close', () => settle(true))
    // A reset after the server refused the rest of the body is a close.
    socket.on('error', () => settle(true))
    socket.write(head)
    if (body.length) socket.write(body)
  })
}

/** The head of a POST with a JSON body of `contentLength` bytes (more than will be sent). */
export function postHead(path: string, contentLength: number, headers: Record<string, string> = {}): string {
  const lines = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${contentLength}`,
  ]
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
  return lines.join('\r\n') + '\r\n\r\n'
}

function parseResponse(raw: string): Omit<StalledOutcome, 'closed'> {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw)
  if (!m) return { status: 0, headers: {}, body: undefined }
  const split = raw.indexOf('\r\n\r\n')
  const headers: Record<string, string> = {}
  for (const line of raw
    .slice(0, split < 0 ? raw.length : split)
    .split('\r\n')
    .slice(1)) {
    const i = line.indexOf(':')
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  let body: any
  try {
    body = JSON.parse(raw.slice(split + 4))
  } catch {
    body = raw.slice(split + 4)
  }
  return { status: Number(m[1]), headers, body }
}
