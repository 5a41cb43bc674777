// One run of the cluster drill (docs/scaling.md): its own cluster profile (three brokers, Redis, two ingest
// instances behind HAProxy), then (a) a Hobby key's requests spread over both instances against the
// plan's per-minute limit, (b) a steady load through HAProxy while one broker is SIGKILLed and later
// restarted, (c) one ingest instance SIGKILLed under the same load and restarted; then every
// acknowledged event_id is reconciled against the topic and ClickHouse, as in the single-node drill.
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openAdmin } from '../admin-context.js'
import { ClusterStack, type ClusterComponent } from './cluster-stack.js'
import { CLICKHOUSE_FAULTS, compareReplicas } from './cluster-clickhouse-faults.js'
import { SteadyLoad } from './load.js'
import { reconcile, drillResult, runEnv, type DrillResult } from './run-drill.js'
import { sendWithinOneWindow, limiterFallbacks } from './rate-limit-part.js'
import { judgeRateLimit, unavailability, type LimitVerdict } from './cluster-report.js'
import { summarise, verdict, renderMarkdown, renderText, type FaultWindow, type Outcome } from './report.js'
import type { ClusterDrillOptions } from './cluster-options.js'

/** The single-node drill's result, plus the rate-limit part and the cluster's start time. */
export interface ClusterDrillResult extends DrillResult {
  /** localChecks: limiter checks the instances answered alone (Redis too slow) during part (a); undefined: not exported. */
  rateLimit?: LimitVerdict & { requests: number; localChecks?: number }
  clusterStartSeconds: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const ALWAYS_UP: ClusterComponent[] = [
  'kafka-1',
  'kafka-2',
  'kafka-3',
  'ingest-1',
  'ingest-2',
  'projector',
  'haproxy',
  'zookeeper',
  'clickhouse-1',
  'clickhouse-2',
  'clickhouse-3',
  'clickhouse-4',
]

export async function runClusterDrill(
  root: string,
  o: ClusterDrillOptions,
  say: (msg: string) => void = (m) => process.stderr.write(`[drill] ${m}\n`),
): Promise<ClusterDrillResult> {
  const t0 = Date.now()
  const runId = `c${Date.now().toString(36)}${randomBytes(2).toString('hex')}`
  const logDir = join(o.clusterDir, 'drill-logs', runId)
  mkdirSync(logDir, { recursive: true })
  const servicesEnv: Record<string, string> = { ...runEnv(runId), LOG_LEVEL: 'info' }
  const stack = new ClusterStack(root, o.clusterDir, o.portBase, servicesEnv)
  let load: SteadyLoad | undefined
  const cleanup = async () => {
    await load?.stop().catch(() => undefined)
    if (!o.keepStack) await stack.down().catch((err) => say(`cluster down failed: ${err.message}`))
  }
  const onSignal = () => void cleanup().finally(() => process.exit(130))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    say(
      `run ${runId}: starting the drill's own cluster in ${o.clusterDir} (ports from ${o.portBase}; HAProxy ${stack.haproxyUrl}; logs in ${o.clusterDir}/logs)`,
    )
    const startMs = await stack.up()
    say(`cluster up in ${secs(startMs)}`)
    const env = stack.clientEnv()

    const { admin, close: closeAdmin } = await openAdmin({ ...process.env, ...env, LOG_LEVEL: 'error' })
    // The Hobby key first: the accounts topic has one partition, so an instance that knows the
    // unlimited key created after it knows the Hobby key too (no request of part (a) is spent on probing).
    await admin.createAccount({ accountId: `hobby_${runId}`, plan: 'hobby' })
    const hobby = await admin.createKey({ accountId: `hobby_${runId}`, name: 'drill hobby', type: 'test' })
    await admin.createAccount({ accountId: `drill_${runId}`, plan: 'unlimited' })
    const { secret } = await admin.createKey({ accountId: `drill_${runId}`, name: 'drill', type: 'live' })
    await closeAdmin()

    const loadSettings = {
      key: secret,
      runId,
      rate: o.rate,
      batchRate: o.batchRate,
      batchSize: o.batchSize,
      timeoutMs: 60_000,
      maxInFlight: 8000,
    }
    load = new SteadyLoad({ ...loadSettings, ingestUrl: stack.haproxyUrl })
    const windows: FaultWindow[] = [
      { name: 'baseline', title: 'no fault (baseline)', startedAt: Date.now(), endedAt: 0, notes: [], problems: [] },
    ]
    // Both instances accept the key before anything is measured; what they acknowledge is reconciled too.
    for (const i of [1, 2] as const) {
      const probe = new SteadyLoad({ ...loadSettings, runId: `${runId}-probe${i}`, ingestUrl: stack.ingestUrl(i) })
      await probe.untilAccepted(60_000)
      load.outcomes.push(...probe.outcomes)
    }

    let rateLimit: ClusterDrillResult['rateLimit']
    if (o.parts.includes('rate-limit')) {
      say(
        `part (a): ${o.rateLimitRequests} requests of a Hobby key within one minute, alternating between the two instances`,
      )
      const instanceUrls = [stack.ingestUrl(1), stack.ingestUrl(2)]
      const adminUrls = [stack.ingestAdminUrl(1), stack.ingestAdminUrl(2)]
      const fallbacksBefore = await limiterFallbacks(adminUrls)
      const answers = await sendWithinOneWindow(
        { instanceUrls, key: hobby.secret, count: o.rateLimitRequests, concurrency: 10, minSecondsLeft: 20 },
        say,
      )
      const fallbacksAfter = await limiterFallbacks(adminUrls)
      const localChecks =
        fallbacksBefore === undefined || fallbacksAfter === undefined ? undefined : fallbacksAfter - fallbacksBefore
      rateLimit = { ...judgeRateLimit(answers, 100), requests: answers.length, localChecks }
      say(
        `  accepted ${rateLimit.accepted} (instance 1: ${rateLimit.acceptedByInstance[1] ?? 0}, instance 2: ${rateLimit.acceptedByInstance[2] ?? 0}), 429: ${rateLimit.rejected}, other: ${rateLimit.other}${rateLimit.problems.length ? `; problems: ${rateLimit.problems.join('; ')}` : ''}`,
      )
    }

    await load.untilAccepted(30_000)
    load.start()
    say(
      `load running through HAProxy: ${o.rate} events/s on /v1/event and ${o.batchRate} batch(es) of ${o.batchSize}/s on /v1/events`,
    )
    await sleep(o.baselineSeconds * 1000)

    const spans: Array<{ w: FaultWindow; from: number; until: number; what: string }> = []
    const begin = (name: string, title: string): FaultWindow => {
      const w: FaultWindow = { name, title, startedAt: Date.now(), endedAt: 0, notes: [], problems: [] }
      windows.at(-1)!.endedAt = w.startedAt
      windows.push(w)
      say(`fault: ${title}`)
      return w
    }
    if (o.parts.includes('broker-kill')) {
      const broker = `kafka-${o.broker}` as const
      const w = begin('broker-kill', `SIGKILL ${broker} of 3, restarted after ${o.downSeconds} s`)
      await stack.kill(broker)
      await sleep(o.downSeconds * 1000)
      const restartAt = Date.now()
      spans.push({ w, from: w.startedAt, until: restartAt, what: `${broker} was down` })
      w.notes.push(`${broker} ready again ${secs(await stack.up())} after its restart`)
      await sleep(o.recoverySeconds * 1000)
      checkAlive(stack, w)
    }
    if (o.parts.includes('ingest-kill')) {
      const instance = `ingest-${o.ingest}` as const
      const w = begin('ingest-kill', `SIGKILL ${instance} of 2 behind HAProxy, restarted after ${o.downSeconds} s`)
      await stack.kill(instance)
      await sleep(o.downSeconds * 1000)
      spans.push({ w, from: w.startedAt, until: Date.now(), what: `${instance} was down` })
      w.notes.push(`${instance} ready again ${secs(await stack.up())} after its restart`)
      await sleep(o.recoverySeconds * 1000)
      checkAlive(stack, w)
    }
    const replicaChecks: Array<() => Promise<void>> = []
    for (const f of CLICKHOUSE_FAULTS.filter((x) => o.parts.includes(x.part))) {
      const w = begin(f.part, f.title(o.downSeconds))
      for (const c of f.kill) await stack.kill(c)
      await sleep(o.downSeconds * 1000)
      spans.push({
        w,
        from: w.startedAt,
        until: Date.now(),
        what: `${f.kill.join(' and ')} ${f.kill.length > 1 ? 'were' : 'was'} down`,
      })
      w.notes.push(`${f.kill.join(' and ')} ready again ${secs(await stack.up())} after the restart`)
      await sleep(o.recoverySeconds * 1000)
      checkAlive(stack, w)
      // After reconciliation, when the projector has written everything (the replicas then hold all of it).
      if (f.compareReplicas)
        replicaChecks.push(() => compareReplicas(stack, env.CLICKHOUSE_DATABASE!, f.compareReplicas!, w))
    }
    await load.stop()
    windows.at(-1)!.endedAt = Date.now() + 1
    say(`load stopped: ${load.outcomes.length} requests; reconciling`)

    for (const { w, from, until, what } of spans) {
      const u = unavailability(load.outcomes, from, until)
      w.notes.push(
        u.unavailable
          ? `${u.unavailable} requests got 503 or no answer; the last one ended ${secs(u.lastAfterMs!)} after the kill`
          : 'no request got 503 or went unanswered',
      )
      if (u.tookOverAfterMs === undefined)
        w.problems.push(`200s did not resume while ${what} (the rest of the cluster did not take over)`)
      else w.notes.push(`200s resumed ${secs(u.tookOverAfterMs)} after the kill, while ${what}`)
    }

    const rec = await reconcile(env, runId, o, say)
    for (const check of replicaChecks) await check()
    writeLost(join(logDir, 'lost.json'), load.outcomes, rec.rec.topic, rec.rec.clickhouse, windows)
    const rows = summarise(windows, load.outcomes, rec.rec)
    const v = verdict(rows, rec.rec, load.outcomes)
    if (rateLimit) for (const p of rateLimit.problems) v.failures.push(`rate-limit: ${p}`)
    v.ok = v.failures.length === 0
    const limitText = rateLimit ? renderRateLimit(rateLimit) : ''
    const base = drillResult({
      runId,
      rows,
      verdict: v,
      t0,
      skipped: load.skipped,
      rec,
      logDir,
      text: [limitText, renderText(rows)].filter(Boolean).join('\n\n'),
      markdown: [limitText && renderRateLimitMarkdown(rateLimit!), renderMarkdown(rows)].filter(Boolean).join('\n\n'),
    })
    return { ...base, rateLimit, clusterStartSeconds: Math.round(startMs / 100) / 10 }
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    say(
      o.keepStack
        ? `keeping the cluster in ${o.clusterDir} (stop it: CLUSTER_DIR=${o.clusterDir} CLUSTER_PORT_BASE=${o.portBase} npm run stack:down -- --profile cluster)`
        : 'stopping the drill cluster',
    )
    await cleanup()
  }
}

/** A component that is down after its fault's recovery died on its own: a finding, not noise. */
function checkAlive(stack: ClusterStack, w: FaultWindow): void {
  for (const c of ALWAYS_UP) if (!stack.pid(c)) w.problems.push(`${c} is not running at the end of the recovery time`)
}

function renderRateLimit(r: NonNullable<ClusterDrillResult['rateLimit']>): string {
  return [
    `part (a), per-minute limit across both instances (Hobby, 100/min): ${r.requests} requests, ${r.accepted} accepted (instance 1: ${r.acceptedByInstance[1] ?? 0}, instance 2: ${r.acceptedByInstance[2] ?? 0}), ${r.rejected} got 429, ${r.other} other; ${localText(r.localChecks)}`,
    ...(r.problems.length
      ? r.problems.map((p) => `  problem: ${p}`)
      : [
          '  every 429 had RATE_LIMIT_EXCEEDED, Retry-After to the window end, X-RateLimit-Remaining 0 and the details; the 200s counted 99..0 down once each',
        ]),
  ].join('\n')
}

function renderRateLimitMarkdown(r: NonNullable<ClusterDrillResult['rateLimit']>): string {
  return [
    '| part (a): Hobby key, 100/min | requests | accepted (instance 1 + 2) | 429 | other | checks answered locally (Redis too slow) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    `| within one minute, alternating instances | ${r.requests} | ${r.accepted} (${r.acceptedByInstance[1] ?? 0} + ${r.acceptedByInstance[2] ?? 0}) | ${r.rejected} | ${r.other} | ${r.localChecks ?? 'n/a'} |`,
    ...(r.problems.length ? ['', ...r.problems.map((p) => `- problem: ${p}`)] : []),
  ].join('\n')
}

function localText(n: number | undefined): string {
  if (n === undefined) return 'the instances do not export ingest_limiter_fallback_total (no shared limits)'
  return `${n} limiter checks answered by one instance alone because Redis did not answer within REDIS_TIMEOUT_MS`
}

/** Every request with an acknowledged event that reconciliation did not find, with its times relative
 * to the window it ended in: what is needed to trace a loss in the services' and brokers' logs. */
function writeLost(
  file: string,
  outcomes: Outcome[],
  topic: Map<string, number>,
  clickhouse: Set<string>,
  windows: FaultWindow[],
): void {
  const lost = outcomes.flatMap((o) => {
    const missing = o.events.filter((e) => e.eventId && (!topic.has(e.eventId) || !clickhouse.has(e.eventId)))
    if (!missing.length) return []
    const w = windows.find((x) => o.doneAt >= x.startedAt && o.doneAt < x.endedAt)
    return [
      {
        window: w?.name,
        sentAt: new Date(o.sentAt).toISOString(),
        doneAt: new Date(o.doneAt).toISOString(),
        sentAfterFaultMs: w ? o.sentAt - w.startedAt : undefined,
        doneAfterFaultMs: w ? o.doneAt - w.startedAt : undefined,
        status: o.status,
        items: o.events.length,
        missing: missing.map((e) => ({
          ...e,
          onTopic: topic.has(e.eventId!),
          inClickHouse: clickhouse.has(e.eventId!),
        })),
      },
    ]
  })
  if (lost.length) writeFileSync(file, JSON.stringify(lost, null, 2) + '\n')
}
