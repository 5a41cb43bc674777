// `npm run bench -- --only replay` (bench/HISTORY.md): fills a fresh events topic once with real Avro
// records produced straight to Kafka in large batches, then times `npm run replay` -- the compiled
// CLI from dist/, in a process of its own, as an operator runs it -- into a fresh database, into
// empty live tables, and into the same live tables again (A5: the second live replay must leave
// exact counts unchanged). With --profile the CLI runs under --cpu-prof.
import { randomBytes, randomUUID } from 'node:crypto'
import type { ClickHouseClient } from '@clickhouse/client'
import { createProducer, type Producer } from '../services/shared/src/kafka/client.js'
import type { Codec } from '../schemas/codec.js'
import type { EventRecord } from '../schemas/records.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { openEventLog } from '../services/shared/src/event-log.js'
import { createClickHouse } from '../services/shared/src/clickhouse.js'
import type { Logger } from '../services/shared/src/log.js'
import type { ReplaySummary } from '../services/projector/src/replay/index.js'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ROOT, compiled, cpuSeconds, reapedChildrenCpuSeconds } from './processes.js'
import { readFileSync } from 'node:fs'

export interface ReplayBenchOptions {
  records: number
  /** Which replays to run, in order. */
  targets: Array<'fresh' | 'live' | 'live-again'>
  say: (line: string) => void
  /** With --profile: the CLI writes its CPU profile here. */
  profileDir?: string
}

export interface ReplayRun {
  target: string
  records: number
  durationSec: number
  recordsPerSec: number
  /** The whole command's wall time (start, replay, the hourly recount after it, exit); the rate is the replay's. */
  commandSec: number
  events: number
  deadLettered: number
  finalRows: number
  distinctIds: number
  /** CPU time of this process (the replay) per record read, µs. */
  cpuUsPerRecord: number
  /** CPU time of the stack's ClickHouse server during the replay per record read, µs (inserts, lookups, merges); null if its pid is unknown. */
  clickhouseUsPerRecord: number | null
}

export interface ReplayBenchFigures {
  records: number
  partitions: number
  fill: { durationSec: number; recordsPerSec: number; bytes: number }
  runs: ReplayRun[]
  settings: Record<string, string | number>
}

export const ACCOUNTS = 20
const USERS = 5_000
const DAYS = 30
const SEND = 5_000

/** A realistic event: properties and context of a web SDK, a message_id (so the H16 lookup runs), traits on 1 in 10. */
export function benchEvent(i: number, now: number): EventRecord {
  const user = i % USERS
  const ts = now - Math.floor(((i * 7919) % (DAYS * 86_400)) * 1000)
  return {
    event_id: randomUUID(),
    account_id: `bench_acct_${user % ACCOUNTS}`,
    environment: 'live',
    key_id: 'bench_key',
    event: ['page_viewed', 'item_added', 'checkout_started', 'signed_up'][i % 4]!,
    user_id: `user_${user}`,
    user_email: i % 10 === 0 ? `user_${user}@example.com` : null,
    user_traits: i % 10 === 0 ? JSON.stringify({ plan: ['free', 'pro'][user % 2], seats: user % 17 }) : null,
    timestamp: ts,
    original_timestamp: ts,
    received_at: ts + 40,
    sent_at: ts + 20,
    timestamp_flagged: false,
    properties: JSON.stringify({
      path: `/products/${i % 500}`,
      referrer: 'https://example.com/search?q=shoes',
      value: i % 100,
      currency: 'EUR',
    }),
    context: JSON.stringify({
      library: { name: 'tracking-js', version: '1.4.2' },
      page: { url: `https://shop.example.com/products/${i % 500}`, title: 'Product' },
      locale: 'de-DE',
      screen: { width: 1440, height: 900 },
      ip: '203.0.113.7',
    }),
    ip: '203.0.113.7',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    message_id: `msg-${i}`,
  }
}

export async function fill(producer: Producer, codec: Codec, topic: string, n: number, say: (s: string) => void) {
  const now = Date.now()
  let bytes = 0
  const t0 = Date.now()
  for (let sent = 0; sent < n; ) {
    const count = Math.min(SEND, n - sent)
    const messages = new Array(count)
    for (let j = 0; j < count; j++) {
      const e = benchEvent(sent + j, now)
      const value = codec.encode('Event', e)
      bytes += value.length
      messages[j] = { key: `${e.account_id}:${e.user_id}`, value }
    }
    await producer.send({ topic, acks: -1, messages })
    sent += count
    if (sent % 200_000 === 0 || sent === n)
      say(
        `filled ${sent.toLocaleString('en-US')} records (${Math.round((sent * 1000) / Math.max(1, Date.now() - t0))}/s)`,
      )
  }
  const durationSec = (Date.now() - t0) / 1000
  return { durationSec, recordsPerSec: Math.round(n / durationSec), bytes }
}

/** The pid deploy/local/stack.sh recorded for a component (`.stack/run/<name>.pid`). */
function recordedPid(env: Record<string, string>, name: string): number {
  return Number(readFileSync(join(env.STACK_DIR ?? join(ROOT, '.stack'), 'run', `${name}.pid`), 'utf8').trim())
}

/** `pid` if it is a running process, else null. */
const running = (pid: number): number | null => (cpuSeconds(pid) === null ? null : pid)

/** The local stack's ClickHouse server, or null. deploy/local/stack.sh records its supervisor's pid
 * (deploy/local/chdb/server.py, docs/design.md A7), whose one child is the server doing the work. */
export function clickhousePid(env: Record<string, string>): number | null {
  try {
    const supervisor = recordedPid(env, 'clickhouse')
    return running(Number(readFileSync(`/proc/${supervisor}/task/${supervisor}/children`, 'utf8').trim().split(' ')[0]))
  } catch {
    return null
  }
}

/** The stack's Kafka broker (the JVM's own pid is recorded), or null when not found. */
export function kafkaPid(env: Record<string, string>): number | null {
  try {
    return running(recordedPid(env, 'kafka'))
  } catch {
    return null
  }
}

export async function exactCounts(ch: ClickHouseClient, db: string) {
  const rs = await ch.query({
    query: `SELECT count() AS n, uniqExact(event_id) AS ids FROM ${db}.events FINAL`,
    format: 'JSONEachRow',
  })
  const [row] = await rs.json<{ n: string; ids: string }>()
  return { finalRows: Number(row!.n), distinctIds: Number(row!.ids) }
}

const AFTER_THE_REPLAY = /view statement\(s\) in|hours recounted in/

/**
 * Runs the compiled replay CLI (`npm run replay` without the build check: the bench built dist/)
 * and returns its --json summary; one progress line in five goes to `say`, and the lines that time what the
 * command does after the replay (A37's views, U25's recount).
 */
export function runReplayCli(
  argv: string[],
  env: Record<string, string>,
  profileDir: string | undefined,
  say: (s: string) => void,
  /** Told the CLI's pid once it is started (its memory is sampled from it). */
  onStart?: (pid: number) => void,
): Promise<{ database: string; summary: ReplaySummary }> {
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []
  const proc = spawn(
    process.execPath,
    [...nodeArgs, join(ROOT, compiled('services/projector/src/replay/cli.ts')), ...argv],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  if (proc.pid !== undefined) onStart?.(proc.pid)
  let out = ''
  let errTail = ''
  let lines = 0
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    errTail = (errTail + d).slice(-4000)
    for (const line of d.split('\n'))
      if ((line.startsWith('replay ') && lines++ % 5 === 0) || AFTER_THE_REPLAY.test(line)) say(line)
  })
  return new Promise((resolve, reject) => {
    proc.once('error', reject)
    proc.once('close', (code) => {
      if (code !== 0) return reject(new Error(`replay CLI exited with ${code}:\n${errTail}`))
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!))
      } catch (err) {
        reject(new Error(`replay CLI printed no JSON summary: ${out.slice(-500)}`, { cause: err }))
      }
    })
  })
}

/** Runs the replay bench against the stack named by `env` (topics and database as the caller named them). */
export async function replayBench(
  env: Record<string, string>,
  log: Logger,
  o: ReplayBenchOptions,
): Promise<ReplayBenchFigures> {
  const cfg = loadProjectorConfig(env)
  const { kafka, codec } = await openEventLog(cfg, 'bench-fill', log)
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  o.say(
    `replay: filling ${cfg.topics.events} with ${o.records.toLocaleString('en-US')} records (${cfg.topicPartitions} partitions)`,
  )
  const filled = await fill(producer, codec, cfg.topics.events, o.records, o.say).finally(() => producer.disconnect())

  const ch = await createClickHouse(cfg.clickhouse)
  const chPid = clickhousePid(env)
  const runs: ReplayRun[] = []
  try {
    for (const target of o.targets) {
      const fresh = `${cfg.clickhouse.database}_replay_${randomBytes(3).toString('hex')}`
      const argv = [
        '--topic',
        'all',
        '--target',
        target === 'fresh' ? 'fresh' : 'live',
        ...(target === 'fresh' ? ['--database', fresh] : []),
        '--json',
      ]
      o.say(
        `replay: ${argv.join(' ')}${target === 'live-again' ? ' (again, over the rows of the first live replay)' : ''}`,
      )
      const cpu0 = reapedChildrenCpuSeconds()
      const ch0 = chPid === null ? null : cpuSeconds(chPid)
      const t0 = performance.now()
      const report = await runReplayCli(argv, env, o.profileDir, o.say)
      const commandSec = Math.round((performance.now() - t0) / 100) / 10
      const cpuSec = reapedChildrenCpuSeconds() - cpu0
      const ch1 = chPid === null ? null : cpuSeconds(chPid)
      const s: ReplaySummary = report.summary
      const counts = await exactCounts(ch, report.database)
      runs.push({
        target,
        records: s.records,
        durationSec: Math.round(s.durationMs / 100) / 10,
        recordsPerSec: Math.round(s.rate),
        commandSec,
        events: s.events,
        deadLettered: s.deadLettered,
        ...counts,
        cpuUsPerRecord: Math.round((cpuSec * 1e6) / Math.max(1, s.records)),
        clickhouseUsPerRecord:
          ch0 === null || ch1 === null ? null : Math.round(((ch1 - ch0) * 1e6) / Math.max(1, s.records)),
      })
      o.say(
        `replay --target ${target}: ${s.records.toLocaleString('en-US')} records in ${(s.durationMs / 1000).toFixed(1)}s = ${Math.round(s.rate).toLocaleString('en-US')} records/s (the command ${commandSec}s); events FINAL ${counts.finalRows}, distinct ${counts.distinctIds}`,
      )
      if (target === 'fresh') await ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` })
    }
  } finally {
    await ch.close()
  }
  return {
    records: o.records,
    partitions: cfg.topicPartitions,
    fill: filled,
    runs,
    settings: { maxRows: cfg.replayMaxRows, fetchPartitionBytes: cfg.replayFetchPartitionBytes },
  }
}
