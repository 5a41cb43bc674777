// The live feed's stream handling without Kafka or ClickHouse (U3): a client that stops reading is
// cut off cleanly (its socket destroyed, its timer cleared, no write after the end), streams are
// capped per account and in total with 429/503 and Retry-After, and an item is serialized once per
// publish whatever the number of subscribers.
import t, { type Test } from 'tap'
import { connect, type Socket, type AddressInfo } from 'node:net'
import { createServer, type Server } from 'node:http'
import { LiveHub, type LiveFrame, type Subscriber } from './live-hub.js'
import { handleLive } from './sse.js'
import type { RecordsByKind } from '../clickhouse/writer.js'
import { ManualTimers } from '../../../../test/support/manual-timers.js'

const TOKEN = 'x'.repeat(32)

function eventsOf(accountId: string, n: number, propertyBytes: number): RecordsByKind {
  const properties = JSON.stringify({ pad: 'p'.repeat(propertyBytes) })
  const events = Array.from({ length: n }, (_, i) => ({
    event_id: `e-${accountId}-${i}-${Math.random()}`,
    account_id: accountId,
    environment: 'live',
    event: 'big',
    user_id: 'u',
    timestamp: Date.now(),
    received_at: Date.now(),
    properties,
    context: '{}',
  }))
  return { events, identifies: [] } as unknown as RecordsByKind
}

const PING_MS = 15_000

// The pings run on manual timers: a test moves their clock instead of sleeping for them.
async function serve(
  t: Test,
  hub: LiveHub,
  opts = { bufferBytes: 64 * 1024, pingMs: PING_MS, timers: new ManualTimers() },
): Promise<number> {
  const server: Server = createServer((req, res) =>
    handleLive(req, res, new URL(req.url!, 'http://x'), hub, { liveToken: TOKEN }, opts),
  )
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return (server.address() as AddressInfo).port
}

/** A raw client that reads until the stream is open, then stops reading (paused, nothing consumed). */
function openRaw(port: number, accountId: string): Promise<{ socket: Socket; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let head = ''
    socket.on('error', reject)
    socket.on('data', function onData(chunk) {
      head += chunk.toString()
      if (head.includes(': connected')) {
        socket.off('data', onData)
        socket.pause()
        resolve({ socket, head })
      }
    })
    socket.write(`GET /live?account_id=${accountId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`)
  })
}

/** Yields to the event loop (socket events, no clock) until check holds; tap's timeout bounds it. */
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setImmediate(r))
}

t.test('a client that stops reading is cut off; its timer stops and the process lives on', async (t) => {
  const hub = new LiveHub()
  const timers = new ManualTimers()
  const port = await serve(t, hub, { bufferBytes: 64 * 1024, pingMs: PING_MS, timers })
  const uncaught: Error[] = []
  const onUncaught = (err: Error) => uncaught.push(err)
  process.on('uncaughtException', onUncaught)
  t.teardown(() => process.off('uncaughtException', onUncaught))

  const { socket } = await openRaw(port, 'slow')
  const fast = await openRaw(port, 'slow')
  fast.socket.resume()
  let fastBytes = 0
  let fastPings = 0
  fast.socket.on('data', (c: Buffer) => {
    fastBytes += c.length
    fastPings += c.toString().split(': ping').length - 1
  })
  t.teardown(() => [socket, fast.socket].forEach((s) => s.destroy()))
  t.equal(hub.subscribers, 2, 'both streams subscribed (each is told so once it is)')
  t.equal(timers.pending, 2, 'each with its ping timer')

  // A few MB to the account while one client reads nothing: the kernel's buffers fill, then ours.
  let published = 0
  while (hub.subscribers === 2 && published < 64 * 1024 * 1024) {
    hub.publish(eventsOf('slow', 50, 10_000))
    published += 50 * 10_000
    await new Promise((r) => setImmediate(r))
  }
  t.equal(hub.subscribers, 1, 'the stream that stopped reading was cut off')
  t.equal(hub.dropped, 1)
  t.ok(published >= 64 * 1024, `cut after ${Math.round(published / 1024)} KB`)

  // Three pings' time later the other stream has had three more, and a timer left running on the
  // cut stream would have written after its end.
  t.equal(timers.pending, 1, "the cut stream's ping timer is cleared; the open stream's runs on")
  const pingsAtCut = fastPings
  timers.advance(3 * PING_MS)
  await until(() => fastPings >= pingsAtCut + 3)
  t.same(uncaught, [], 'no write after end, no unhandled stream error')

  // The slow client, reading again, gets what the kernel held and then the end of the stream.
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.resume()
  await ended
  t.pass('the cut stream is closed')
  await until(() => fastBytes > 0)
  t.equal(hub.subscribers, 1, 'the reading client is still subscribed')
})

t.test('streams are capped per account (429) and in total (503), each with Retry-After', async (t) => {
  const hub = new LiveHub({ maxStreams: 3, maxStreamsPerAccount: 2 })
  const port = await serve(t, hub)
  const open = [await openRaw(port, 'a'), await openRaw(port, 'a')]
  t.teardown(() => open.forEach((o) => o.socket.destroy()))
  const url = (acct: string) => `http://127.0.0.1:${port}/live?account_id=${acct}`
  const third = await fetch(url('a'), { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(third.status, 429, "the account's third stream is refused")
  t.equal(third.headers.get('retry-after'), '5')
  t.equal((await third.json()).error.code, 'TOO_MANY_STREAMS')

  open.push(await openRaw(port, 'b'))
  const fourth = await fetch(url('c'), { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(fourth.status, 503, 'past the total, any account is refused')
  t.equal(fourth.headers.get('retry-after'), '5')
  t.equal((await fourth.json()).error.code, 'SERVICE_UNAVAILABLE')

  // A closed stream frees its place.
  open.shift()!.socket.destroy()
  await until(() => hub.subscribers === 2)
  const again = await fetch(url('a'), { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(again.status, 200)
  await again.body?.cancel()
})

t.test('an item is serialized once per publish, and every subscriber gets the same bytes', async (t) => {
  const hub = new LiveHub()
  const got: LiveFrame[][] = []
  const sub = (accountId: string): Subscriber => ({
    accountId,
    push: (frames) => (got.push([...frames]), true),
    close: () => {},
  })
  for (let i = 0; i < 3; i++) t.ok(hub.subscribe(sub('a')).ok)
  const batch = eventsOf('a', 4, 10)
  const stringify = JSON.stringify
  let calls = 0
  JSON.stringify = ((...args: Parameters<typeof stringify>) => (calls++, stringify(...args))) as typeof stringify
  try {
    hub.publish(batch)
  } finally {
    JSON.stringify = stringify
  }
  t.equal(calls, 4, 'one JSON.stringify per item, not per item and subscriber')
  t.equal(got.length, 3)
  for (const frames of got) for (let i = 0; i < 4; i++) t.equal(frames[i]!.frame, got[0]![i]!.frame, 'the same Buffer')
  t.match(got[0]![0]!.frame.toString(), /^id: e-a-0-.*\nevent: event\ndata: \{.*"event":"big".*\}\n\n$/s)
})
