// The bench's baseline: a bare node:http server that reads the request body and answers a fixed
// 200 JSON, run as its own process like the ingest service, so ours/baseline compares the same
// load generator against the cheapest server Node can be on this machine.
import { createServer } from 'node:http'

const body = JSON.stringify({ success: true, data: { processed_count: 1, failed_count: 0 }, events_processed: 1 })
const server = createServer((req, res) => {
  req.on('data', () => undefined)
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
})
server.keepAliveTimeout = 65_000
server.listen(Number(process.env.BASELINE_PORT ?? 0), '127.0.0.1', () => {
  const addr = server.address()
  process.stdout.write(`baseline listening ${typeof addr === 'object' && addr ? addr.port : ''}\n`)
})
const stop = () => server.close(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
