// Redis missing at start, then dying, hanging and coming back under a running ingest (docs/scaling.md): requests keep getting 200/429
// from the instance's own limiter, never a 5xx; the fallback metric moves; /health/ready stays 200
// and says where limits are enforced; once Redis answers again the shared counts are used again.
// The test runs its own redis-server (Debian's, as the local stack installs it) on a free port, so it
// can kill and stop it without touching the shared stack.
import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { startServices, waitUntil } from '../support/harness.js'
import { http, freshMinute, expectError } from '../support/contract.js'

const PLANS = { tiny: { requestsPerMinute: 5, eventsPerSecond: 1000, eventsPerMonth: 1_000_000, emailsPerMonth: 0 } }

/** A free port below 32768 (outside the ephemeral range, so no client socket takes it meanwhile). */
async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
    })
    if (ok) return port
  }
  throw new Error('no free port')
}

function startRedis(t: Test, port: number): ChildProcess {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  })
  t.teardown(() => {
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  })
  return p
}

async function ping(client: Redis): Promise<boolean> {
  return client.ping().then(
    () => true,
    () => false,
  )
}

async function killed(p: ChildProcess): Promise<void> {
  const exited = new Promise((r) => p.once('exit', r))
  p.kill('SIGKILL')
  await exited
}

t.test('Redis absent at start, killed, hung and restarted under a running ingest', async (t) => {
  const port = await freePort()
  const prefix = `test:${randomBytes(4).toString('hex')}:`
  const probe = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  })
  probe.on('error', () => undefined)
  t.teardown(() => probe.disconnect())

  // Redis is not there when ingest starts: it starts anyway, limiting per instance, and says so.
  // The call timeout is generous so that only the hung Redis below, never a stall of a loaded test
  // machine's event loop, makes a call time out.
  const s = await startServices(t, {
    projector: false,
    env: {
      PLANS_JSON: JSON.stringify(PLANS),
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_KEY_PREFIX: prefix,
      REDIS_TIMEOUT_MS: '1500',
      REDIS_RETRY_MS: '100',
    },
  })
  const k = await s.createKey({ plan: 'tiny' })
  const send = () =>
    http(s.ingestUrl, '/v1/event', {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${k.key}` },
      body: JSON.stringify({ event: 'e', user: { id: 'u' } }),
    })
  const metrics = async () => (await http(s.ingestAdminUrl, '/metrics', { method: 'GET' })).text
  const fallbacks = async () => Number(/^ingest_limiter_fallback_total (\d+)/m.exec(await metrics())?.[1] ?? NaN)
  const mode = async () => /^ingest_limiter_mode\{mode="(\w+)"\} 1$/m.exec(await metrics())?.[1]
  const ready = () => http(s.ingestAdminUrl, '/health/ready', { method: 'GET' })
  const minuteKey = () => `${prefix}rl:a:${k.accountId}:${Date.now() - (Date.now() % 60_000)}`

  const atStart = await ready()
  t.equal(atStart.status, 200)
  t.match(atStart.body.checks.limits.detail, /not reachable at start/)
  t.equal(await mode(), 'local')

  let redis = startRedis(t, port)
  await waitUntil(() => ping(probe), 10_000, 'the test redis-server')
  await waitUntil(
    async () => (await ready()).body.checks.limits.detail === 'limits shared in Redis',
    20_000,
    'the ingest to find Redis',
  )

  await freshMinute(40_000)
  const first = await send()
  t.equal(first.status, 200)
  t.equal(first.headers['x-ratelimit-remaining'], '4')
  t.equal(await probe.get(minuteKey()), '1', 'counted in Redis')
  t.equal(await mode(), 'redis')
  const beforeKill = await fallbacks()

  // Redis dies: this instance's own limiter answers, counting from what it has seen itself (nothing)
  await killed(redis)
  const during = []
  for (let i = 0; i < 7; i++) during.push(await send())
  t.same(
    during.map((r) => r.status),
    [200, 200, 200, 200, 200, 429, 429],
    'the local limit of 5, never a 5xx',
  )
  expectError(t, during[6]!, 429, 'RATE_LIMIT_EXCEEDED')
  t.equal(await mode(), 'local')
  const afterKill = await fallbacks()
  t.ok(afterKill >= beforeKill + 7, `fallback counted (${beforeKill} -> ${afterKill})`)
  const r = await ready()
  t.equal(r.status, 200, 'still ready: a load balancer must not drop every instance because Redis is down')
  t.equal(r.body.checks.limits.ok, true)
  t.match(r.body.checks.limits.detail, /Redis not answering since .*limits enforced per instance/)

  // Redis is back (empty): the readiness checks' probes (admin listener, H36) find it, and requests count there again
  redis = startRedis(t, port)
  await waitUntil(
    async () => (await ready()).body.checks.limits.detail === 'limits shared in Redis',
    20_000,
    'the ingest to use Redis again',
  )
  t.equal(await mode(), 'redis')
  const back = await send()
  t.equal(back.status, 200, 'the restarted Redis has no count yet for this minute')
  t.equal(back.headers['x-ratelimit-remaining'], '4')
  await waitUntil(() => ping(probe), 10_000, 'the test client to reconnect')
  t.equal(await probe.get(minuteKey()), '1', 'counted in the restarted Redis')

  // Redis hangs (stopped, connection open): calls time out and are answered locally
  redis.kill('SIGSTOP')
  const hung = await send()
  t.equal(hung.status, 429, 'the local count (5 this minute) answers')
  t.equal(await mode(), 'local')
  t.ok((await fallbacks()) > afterKill, 'fallback counted')
  t.equal((await ready()).status, 200)
  redis.kill('SIGCONT')
  await waitUntil(
    async () => (await ready()).body.checks.limits.detail === 'limits shared in Redis',
    20_000,
    'the ingest to use Redis again',
  )
  const again = await send()
  t.equal(again.status, 200)
  // The script of the call that timed out was already sent, so Redis ran it when it resumed: a
  // timed-out check may still count in the shared bucket (it errs toward counting, never below).
  t.equal(
    again.headers['x-ratelimit-remaining'],
    '2',
    'the shared count resumed where it was, with the timed-out call counted',
  )
})
