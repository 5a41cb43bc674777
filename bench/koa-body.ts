// `npx tsx bench/koa-body.ts [--pairs 6] [--rate 5000] [--seconds 8]` (bench/HISTORY.md): what Koa charges for
// answering with an object rather than the same JSON as text. Both put the same bytes on the wire.
// First in process: a Koa context on a real ServerResponse, the body set as ingest sets it and the
// length as Koa's respond() sets it, timed per request over 50,000 requests, five rounds. Then over
// HTTP: a bare Koa app (one middleware: read the body, JSON.parse it, answer a /v1/event success) in
// a child process in each mode in turn, held at one request rate by autocannon, the child's CPU per
// request printed per pair. ingest's event-routes.ts answers with text because of what this shows.
import { fork } from 'node:child_process'
import { parseArgs } from 'node:util'
import { createServer, IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { loadavg } from 'node:os'
import Koa from 'koa'
import { readUtf8 } from '../services/ingest/src/http/json-body.js'
import { cpuSeconds, freePort } from './processes.js'
import { runLoad, singleEventBody } from './load.js'

const { values: a } = parseArgs({
  options: {
    serve: { type: 'string' },
    port: { type: 'string' },
    pairs: { type: 'string', default: '6' },
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '8' },
  },
})

// The body is read as ingest reads a plain JSON body, with its default /v1/event limit (SINGLE_BODY_LIMIT_BYTES).
const BODY_LIMIT = 1_000_000

const answer = () => ({
  success: true,
  data: { results: [{ index: 0, success: true, event_id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' }] },
})

function serve(mode: string, port: number) {
  const app = new Koa()
  app.use(async (ctx) => {
    JSON.parse(await readUtf8(ctx.req, BODY_LIMIT))
    ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8')
    ctx.body = mode === 'text' ? JSON.stringify(answer()) : answer()
  })
  createServer(app.callback()).listen(port, '127.0.0.1', () => process.send?.('ready'))
}

async function run(mode: string, rate: number, seconds: number): Promise<number> {
  const port = await freePort()
  const child = fork(new URL(import.meta.url).pathname, ['--serve', mode, '--port', String(port)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)))
  })
  const url = `http://127.0.0.1:${port}/v1/event`
  const load = { connections: 50, key: 'x', body: singleEventBody(), overallRate: rate }
  await runLoad(url, { ...load, durationSec: 2 })
  const c0 = cpuSeconds(child.pid!)!
  const f = await runLoad(url, { ...load, durationSec: seconds })
  const c1 = cpuSeconds(child.pid!)!
  child.kill()
  if (f.non2xx || f.errors) throw new Error(`${mode}: ${f.non2xx} non-2xx, ${f.errors} errors`)
  return ((c1 - c0) * 1e6) / f.ok2xx
}

/** µs per request of making a context and setting the body (and, for an object, what respond() adds). */
function inProcess(mode: string, n: number): number {
  const app = new Koa()
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) {
    const req = new IncomingMessage(new Socket())
    req.method = 'POST'
    req.url = '/v1/event'
    const ctx = app.createContext(req, new ServerResponse(req))
    ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8')
    if (mode === 'text') ctx.body = JSON.stringify(answer())
    else {
      ctx.body = answer()
      ctx.length = Buffer.byteLength(JSON.stringify(ctx.body))
    }
  }
  return Number(process.hrtime.bigint() - t) / n / 1000
}

async function main() {
  if (a.serve) return serve(a.serve, Number(a.port))
  for (let r = 1; r <= 5; r++) {
    const object = inProcess('object', 50_000)
    const text = inProcess('text', 50_000)
    console.log(`in process, round ${r}: object ${object.toFixed(2)} µs, text ${text.toFixed(2)} µs per request`)
  }
  const rate = Number(a.rate)
  for (let i = 1; i <= Number(a.pairs); i++) {
    // Alternate which mode goes first, so a drift in the machine's load does not favour one.
    const order = i % 2 ? ['object', 'text'] : ['text', 'object']
    const us: Record<string, number> = {}
    for (const mode of order) us[mode] = await run(mode, rate, Number(a.seconds))
    console.log(
      `pair ${i}: object ${us.object!.toFixed(1)} µs, text ${us.text!.toFixed(1)} µs per request at ${rate}/s (load ${loadavg()[0]!.toFixed(1)})`,
    )
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
