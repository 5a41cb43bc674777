// An HTTP proxy in front of the real schema registry, for H41's tests: it forwards every request,
// and can answer for schema ids the registry no longer has, the way the registry restored from a
// backup would. The registry itself cannot give back an id it deleted for good (registering the
// same schema again issues a new id), and restoring a backup into the registry every engineer
// shares is not an option in a test. Listens on 127.0.0.1 in 47000-47999.
import { createServer, request, type Server } from 'node:http'

export interface RegistryProxy {
  /** http://127.0.0.1:<port> followed by `path`. */
  url(path?: string): string
  /** From now on, answer GET .../schemas/ids/<id> with this schema (Avro JSON), as a restored registry would. */
  restore(id: number, schema: unknown): void
  stop(): Promise<void>
}

export async function startRegistryProxy(target: string): Promise<RegistryProxy> {
  const upstream = new URL(target)
  const restored = new Map<number, string>()
  const server: Server = createServer((req, res) => {
    const id = /\/schemas\/ids\/(\d+)(?:\?|$)/.exec(req.url ?? '')?.[1]
    const schema = req.method === 'GET' && id !== undefined ? restored.get(Number(id)) : undefined
    if (schema !== undefined) {
      res.writeHead(200, { 'content-type': 'application/vnd.schemaregistry.v1+json' })
      res.end(JSON.stringify({ schema, schemaType: 'AVRO', references: [] }))
      return
    }
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      },
    )
    out.on('error', () => res.destroy())
    req.pipe(out)
  })
  for (let attempt = 0; ; attempt++) {
    const port = 47000 + Math.floor(Math.random() * 1000)
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (ok) break
    if (attempt > 20) throw new Error('no free port in 47000-47999 for the registry proxy')
  }
  const port = (server.address() as { port: number }).port
  return {
    url: (path = '') => `http://127.0.0.1:${port}${path}`,
    restore: (id, schema) => restored.set(id, JSON.stringify(schema)),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Registers `schema` under a throwaway subject of the real registry, then deletes it for good: its id now answers 404 there. */
export async function registerThenLose(registryUrl: string, subject: string, schema: unknown): Promise<number> {
  const headers = { 'content-type': 'application/vnd.schemaregistry.v1+json' }
  const res = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ schema: JSON.stringify(schema) }),
  })
  if (!res.ok) throw new Error(`registering ${subject}: ${res.status} ${await res.text()}`)
  const { id } = (await res.json()) as { id: number }
  for (const permanent of ['', '?permanent=true']) {
    const del = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}${permanent}`, { method: 'DELETE' })
    if (!del.ok) throw new Error(`deleting ${subject}${permanent}: ${del.status} ${await del.text()}`)
  }
  const gone = await fetch(`${registryUrl}/schemas/ids/${id}`)
  if (gone.status !== 404) throw new Error(`schema id ${id} still answers ${gone.status} after its deletion`)
  return id
}
