// One drill run: its own stack and services, a steady load, the faults one after another with
// recovery time between, then reconciliation of every acknowledged event_id against the topic and
// ClickHouse. Returns the rows and the verdict; the caller prints them and chooses the exit code.
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openPrivacy } from '../admin-context.js'
import { createKafka } from '../../services/shared/src/kafka.js'
import { createClickHouse } from '../../services/shared/src/clickhouse.js'
import { createLogger } from '../../services/shared/src/log.js'
import { scanKeys } from '../../services/shared/src/privacy/keys-scan.js'
import type { Kafka } from '../../services/shared/src/kafka/client.js'
import { Codec, createRegistry } from '../../schemas/codec.js'
import { OwnStack } from './own-stack.js'
import { ManagedService } from './services.js'
import { SteadyLoad } from './load.js'
import { FAULTS, type FaultContext } from './faults.js'
import { readTopicEventIds, waitForProjection, clickhouseEventIds, clickhouseDuplicates } from './reconcile.js'
import {
  summarise,
  verdict,
  renderMarkdown,
  renderText,
  type FaultWindow,
  type Reconciliation,
  type Row,
  type Verdict,
} from './report.js'
import type { DrillOptions } from './options.js'
import {
  awaitReceipt,
  erasureLeftovers,
  openableRecords,
  requestDuringFault,
  seedPerson,
  type ErasurePartSettings,
} from './erasure-part.js'
import type { ErasureRecord } from '../../schemas/records.js'

export interface DrillResult {
  runId: string
  rows: Row[]
  verdict: Verdict
  text: string
  markdown: string
  startedAt: string
  seconds: number
  skipped: number
  topic: { records: number; distinct: number; undecodable: number; complete: boolean }
  clickhouse: { distinct: number; caughtUp: boolean; waitedSeconds: number }
  logDir: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function runDrill(
  root: string,
  o: DrillOptions,
  say: (msg: string) => void = (m) => process.stderr.write(`[drill] ${m}\n`),
): Promise<DrillResult> {
  const t0 = Date.now()
  const runId = `d${Date.now().toString(36)}${randomBytes(2).toString('hex')}`
  const logDir = join(o.stackDir, 'drill-logs', runId)
  mkdirSync(logDir, { recursive: true })
  const stack = new OwnStack(root, o.stackDir, o.ports)
  const services: ManagedService[] = []
  let load: SteadyLoad | undefined
  let closePrivacy: (() => Promise<void>) | undefined
  // Ctrl-C in the middle must not leave a stopped broker or orphaned services behind.
  const onSignal = () => void cleanup().finally(() => process.exit(130))
  const cleanup = async () => {
    // First resume a stalled broker (a no-op otherwise), so requests held by it end and the stack can stop.
    if (stack.pid('kafka')) stack.signal('kafka', 'SIGCONT')
    await load?.stop().catch(() => undefined)
    await closePrivacy?.().catch(() => undefined)
    for (const s of services) await s.signal('SIGKILL').catch(() => undefined)
    if (!o.keepStack) await stack.down().catch((err) => say(`stack down failed: ${err.message}`))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    say(
      `run ${runId}: starting the drill's own stack in ${o.stackDir} (kafka :${o.ports.kafka}, registry :${o.ports.registry}, clickhouse :${o.ports.clickhouseHttp})`,
    )
    await stack.up((err) => say(`stack start failed; retrying once: ${err.message.split('\n')[0]}`))

    const env: Record<string, string> = {
      ...stack.serviceEnv(),
      ...runEnv(runId),
      PROJECTOR_PORT: String(o.ports.projector),
      INGEST_PORT: String(o.ports.ingest),
      INGEST_ADMIN_PORT: String(o.ports.ingestAdmin),
      // Fixed across restarts, so a restarted ingest fences its killed predecessor's open transactions.
      INGEST_INSTANCE_ID: `drill-ingest-${runId}`,
      LOG_LEVEL: 'info',
    }
    const ingestUrl = `http://127.0.0.1:${o.ports.ingest}`
    const projector = new ManagedService(
      'projector',
      root,
      'services/projector/src/main.ts',
      env,
      join(logDir, 'projector.log'),
      `http://127.0.0.1:${o.ports.projector}/health`,
    )
    const ingest = new ManagedService(
      'ingest',
      root,
      'services/ingest/src/main.ts',
      env,
      join(logDir, 'ingest.log'),
      `http://127.0.0.1:${o.ports.ingestAdmin}/health/ready`,
    )
    services.push(projector, ingest)
    say(`starting projector and ingest (logs in ${logDir})`)
    // The projector first: it applies the ClickHouse migrations the ingest's usage reads need.
    await projector.startHealthy()
    await ingest.startHealthy()

    const opened = await openPrivacy({ ...process.env, ...env, LOG_LEVEL: 'error' })
    closePrivacy = opened.close
    const accountId = `drill_${runId}`
    await opened.admin.createAccount({ accountId, plan: 'unlimited' })
    const { secret } = await opened.admin.createKey({ accountId, name: 'drill', type: 'live' })
    // A12: one person of the account is erased while the faults run (erasure-part.ts).
    const erasure: ErasurePartSettings = {
      ingestUrl,
      key: secret,
      accountId,
      userId: `drill_erased_${runId}`,
      count: 20,
      timeoutMs: 180_000,
    }
    const erasureFault = o.faults.includes('projector-kill') ? 'projector-kill' : o.faults[0]
    let erasureWindow: FaultWindow | undefined
    let erasureRequested: Promise<ErasureRecord> | undefined

    load = new SteadyLoad({
      ingestUrl,
      key: secret,
      runId,
      rate: o.rate,
      batchRate: o.batchRate,
      batchSize: o.batchSize,
      timeoutMs: 60_000,
      maxInFlight: 8000,
    })
    const windows: FaultWindow[] = [
      { name: 'baseline', title: 'no fault (baseline)', startedAt: Date.now(), endedAt: 0, notes: [], problems: [] },
    ]
    await load.untilAccepted(30_000)
    const seeded = await seedPerson(erasure)
    say(`${seeded.length} events of ${erasure.userId}, to be erased at ${erasureFault ?? 'no fault'}`)
    load.start()
    say(`load running: ${o.rate} events/s on /v1/event and ${o.batchRate} batch(es) of ${o.batchSize}/s on /v1/events`)
    await sleep(o.baselineSeconds * 1000)

    const ctx: FaultContext = {
      stack,
      ingest,
      projector,
      stallSeconds: o.stallSeconds,
      outageSeconds: o.outageSeconds,
      env,
      say,
    }
    for (const name of o.faults) {
      const fault = FAULTS[name]
      const w: FaultWindow = {
        name,
        title: fault.title(ctx),
        startedAt: Date.now(),
        endedAt: 0,
        notes: [],
        problems: [],
      }
      windows.at(-1)!.endedAt = w.startedAt
      windows.push(w)
      say(`fault: ${w.title}`)
      if (name === erasureFault) {
        // A moment into the fault, so the request and the purge meet it.
        erasureWindow = w
        erasureRequested = sleep(1000).then(() => requestDuringFault(opened.privacy, erasure, say))
        erasureRequested.catch(() => undefined)
      }
      try {
        const r = await fault.inject(ctx)
        w.notes.push(...r.notes)
        w.problems.push(...(r.problems ?? []))
      } catch (err) {
        w.problems.push(`the fault's own recovery failed: ${(err as Error).message.split('\n')[0]}`)
        say(`fault ${name} failed: ${(err as Error).message}`)
      }
      await sleep(o.recoverySeconds * 1000)
      // A service that died on its own is a finding; restart it so the next faults still run.
      for (const s of [projector, ingest]) {
        w.problems.push(...s.takeUnexpectedExits())
        if (!s.alive()) {
          say(`${s.name} is down after ${name}; restarting it for the next fault`)
          try {
            await stack.up((err) => say(`stack start failed; retrying once: ${err.message.split('\n')[0]}`))
            await s.startHealthy()
            w.notes.push(`${s.name} was down at the end of the recovery time; the drill restarted it`)
          } catch (err) {
            w.problems.push(`${s.name} could not be restarted: ${(err as Error).message.split('\n')[0]}`)
          }
        }
      }
      for (const n of [...w.problems, ...w.notes]) say(`  ${n}`)
    }
    await load.stop()
    windows.at(-1)!.endedAt = Date.now() + 1
    say(`load stopped: ${load.outcomes.length} requests; reconciling`)

    let erased: string[] = []
    if (erasureWindow && erasureRequested) {
      const r = await awaitReceipt(opened.privacy, erasure, erasureRequested)
      // Without events of the person the check below could not fail.
      if (seeded.length === 0) r.problems.push('the person to erase had no acknowledged event; nothing was checked')
      erasureWindow.notes.push(...r.notes)
      erasureWindow.problems.push(...r.problems)
      for (const n of [...r.problems, ...r.notes]) say(`erasure: ${n}`)
      erased = seeded
    }
    const keysTopic = opened.privacy.keysTopic
    const rec = await reconcile(env, runId, o, say, {
      erased,
      check: async (ch, db, topic) => {
        if (erased.length === 0) return
        const left = await erasureLeftovers(ch, db, erasure, seeded)
        // A17: with sealing on, none of the person's records on the topic opens with a key still stored.
        if (keysTopic !== undefined)
          left.push(...openableRecords(topic.sealedBy, await scanKeys(topic.kafka, keysTopic)))
        erasureWindow!.problems.push(...left)
        say(
          left.length
            ? `erasure: ${left.join('; ')}`
            : `erasure: no row of ${erasure.userId} is left${keysTopic ? ', and none of their records on the topic opens' : ''}`,
        )
      },
    })
    for (const s of [projector, ingest]) windows.at(-1)!.problems.push(...s.takeUnexpectedExits())
    const rows = summarise(windows, load.outcomes, rec.rec)
    return drillResult({
      runId,
      rows,
      verdict: verdict(rows, rec.rec, load.outcomes),
      t0,
      skipped: load.skipped,
      rec,
      logDir,
    })
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    say(
      o.keepStack
        ? `keeping the stack in ${o.stackDir} (stop it: STACK_DIR=${o.stackDir} ... bash deploy/local/stack.sh down, with the same ports)`
        : 'stopping the drill stack',
    )
    await cleanup()
  }
}

/** The run's own topics, database and consumer group (also the cluster drill's), so runs never share state. */
export function runEnv(runId: string): Record<string, string> {
  return {
    TOPIC_EVENTS: `drill.${runId}.events`,
    TOPIC_IDENTIFIES: `drill.${runId}.identifies`,
    TOPIC_ACCOUNTS: `drill.${runId}.accounts`,
    TOPIC_DLQ: `drill.${runId}.dlq`,
    TOPIC_ERASURES: `drill.${runId}.erasures`,
    // The master-rotation fault leaves the keys wrapped by a master only that run knew (A35).
    TOPIC_KEYS: `drill.${runId}.keys`,
    TOPIC_REFUSALS: `drill.${runId}.refusals`,
    TOPIC_PARTITIONS: '6',
    CLICKHOUSE_DATABASE: `drill_${runId}`,
    PROJECTOR_GROUP_ID: `drill-projector-${runId}`,
  }
}

/** A finished run's result (also the cluster drill's), its table written to result.md in the log
 *  directory. `text`/`markdown` default to the fault table; a drill with more to say passes its own. */
export function drillResult(r: {
  runId: string
  rows: Row[]
  verdict: Verdict
  t0: number
  skipped: number
  rec: Pick<DrillResult, 'topic' | 'clickhouse'>
  logDir: string
  text?: string
  markdown?: string
}): DrillResult {
  const result: DrillResult = {
    runId: r.runId,
    rows: r.rows,
    verdict: r.verdict,
    text: r.text ?? renderText(r.rows),
    markdown: r.markdown ?? renderMarkdown(r.rows),
    startedAt: new Date(r.t0).toISOString(),
    seconds: Math.round((Date.now() - r.t0) / 1000),
    skipped: r.skipped,
    topic: r.rec.topic,
    clickhouse: r.rec.clickhouse,
    logDir: r.logDir,
  }
  writeFileSync(join(r.logDir, 'result.md'), result.markdown + '\n')
  return result
}

/** Reads back every event_id of the run's events topic and ClickHouse database (also the cluster drill's). */
export async function reconcile(
  env: Record<string, string>,
  runId: string,
  o: Pick<DrillOptions, 'catchUpTimeoutSeconds'>,
  say: (m: string) => void,
  /** A12: the erased person's ids (on the topic, not expected in ClickHouse), and the check of what
   *  is left of them once the projection has caught up. */
  erasure?: {
    erased: string[]
    check(
      ch: Awaited<ReturnType<typeof createClickHouse>>,
      db: string,
      topic: { kafka: Kafka; sealedBy: Map<string, string | null> },
    ): Promise<void>
  },
) {
  const log = createLogger('error', { svc: 'drill' })
  const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'drill-reconcile' }, log)
  const codec = new Codec(createRegistry(env.SCHEMA_REGISTRY_URL))
  const watch = new Set(erasure?.erased)
  const topic = await readTopicEventIds(kafka, codec, env.TOPIC_EVENTS, `drill-reconcile-${runId}`, 120_000, watch)
  say(
    `topic: ${topic.records} records, ${topic.ids.size} distinct event_ids${topic.complete ? '' : ' (NOT read to its end)'}${topic.undecodable ? `, ${topic.undecodable} undecodable` : ''}`,
  )
  const ch = await createClickHouse({
    url: env.CLICKHOUSE_URL,
    username: 'default',
    password: '',
    database: env.CLICKHOUSE_DATABASE,
  })
  try {
    const db = env.CLICKHOUSE_DATABASE
    const erased = erasure?.erased.filter((id) => topic.ids.has(id)).length ?? 0
    const wait = await waitForProjection(ch, db, topic.ids.size - erased, {
      settleMs: 30_000,
      timeoutMs: o.catchUpTimeoutSeconds * 1000,
      progress: (n) => say(`clickhouse: ${n} of ${topic.ids.size - erased} distinct event_ids`),
    })
    say(`projector ${wait.caughtUp ? 'caught up' : 'did NOT catch up'} after ${(wait.waitedMs / 1000).toFixed(0)} s`)
    await erasure?.check(ch, db, { kafka, sealedBy: topic.sealedBy })
    const rec: Reconciliation = {
      topic: topic.ids,
      clickhouse: await clickhouseEventIds(ch, db),
      duplicated: await clickhouseDuplicates(ch, db),
      topicComplete: topic.complete,
      projectionCaughtUp: wait.caughtUp,
    }
    return {
      rec,
      topic: {
        records: topic.records,
        distinct: topic.ids.size,
        undecodable: topic.undecodable,
        complete: topic.complete,
      },
      clickhouse: {
        distinct: rec.clickhouse.size,
        caughtUp: wait.caughtUp,
        waitedSeconds: Math.round(wait.waitedMs / 1000),
      },
    }
  } finally {
    await ch.close()
  }
}
