// A loopback TCP proxy for fault tests: while closed it resets every connection (the client sees a
// dependency that is down), while open it forwards to the real server. Closing it also resets the
// connections it is forwarding, so pooled keep-alive sockets fail as they would in an outage.
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpGate {
  /** The port clients connect to (127.0.0.1). */
  port: number
  /** http://127.0.0.1:<port> followed by `path`. */
  url(path?: string): string
  open(): void
  close(): void
  /** How many connections were refused while closed. */
  refused: number
  stop(): Promise<void>
}

export async function startTcpGate(
  target: { host: string; port: number },
  opts: { open?: boolean } = {},
): Promise<TcpGate> {
  let isOpen = opts.open ?? false
  const live = new Set<Socket>()
  const server: Server = createServer((client) => {
    if (!isOpen) {
      gate.refused++
      client.resetAndDestroy()
      return
    }
    const upstream = connect(target.port, target.host)
    live.add(client)
    live.add(upstream)
    const end = () => {
      live.delete(client)
      live.delete(upstream)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const gate: TcpGate = {
    port,
    refused: 0,
    url: (path = '') => `http://127.0.0.1:${port}${path}`,
    open: () => {
      isOpen = true
    },
    close: () => {
      isOpen = false
      for (const s of live) s.resetAndDestroy()
      live.clear()
    },
    stop: async () => {
      gate.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return gate
}
