// Graceful drain (H36): on SIGTERM the server stops accepting connections, requests already
// being handled run to their answer (their records are flushed to Kafka first), and keep-alive
// connections are closed as soon as they fall idle -- responses sent while draining carry
// `Connection: close`, so clients reconnect to another instance rather than to a closing one.
// Node's server.close() alone waits for keep-alive connections to time out, so idle ones are
// closed repeatedly until none is left or the deadline passes.
import type { Server } from 'node:http'

export async function drainServer(server: Server, deadlineMs: number): Promise<{ forced: boolean }> {
  let forced = false
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  const sweep = setInterval(() => server.closeIdleConnections(), 50)
  server.closeIdleConnections()
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      forced = true
      server.closeAllConnections()
      resolve()
    }, deadlineMs)
  })
  await Promise.race([closed, deadline])
  clearInterval(sweep)
  clearTimeout(timer)
  return { forced }
}
