// `npm run bench -- --only replay-sealed` (A21): the replay over a sealed topic against the same records
// in clear, in one run. Fills two events topics with the same realistic records (bench/replay.ts's
// event, spread over PERSONS people and one received month): one straight in clear, one through ingest's
// real sealer (RecordSealer: pseudonyms, a data key per person-month minted and written to a keys topic
// of its own with acks=all before its records, A15/A18). Then times the compiled `npm run replay --target
// fresh` over each, alternating clear and sealed (A B A B) so the machine's load falls on both alike.
// Standalone against the running stack: STACK_DIR=... npx tsx bench/replay-sealed.ts [records] [persons]
// (ROUNDS=n rounds of each, WORKERS=1,2 the replay threads to time, each in every round (A30), PROFILE_DIR=dir
// a CPU profile of each replay, SESSIONS=n the topic's shape: see personOf; KEEP=1 leaves the topics, and
// REUSE=<the base it names> replays them again without filling, for builds compared one after the other)
import { randomBytes } from 'node:crypto'
import { createProducer, type Producer } from '../services/shared/src/kafka/client.js'
import type { Codec } from '../schemas/codec.js'
import type { EventRecord } from '../schemas/records.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { createEventLogClients, openEventLog } from '../services/shared/src/event-log.js'
import { createClickHouse } from '../services/shared/src/clickhouse.js'
import { createLogger, type Logger } from '../services/shared/src/log.js'
import { RecordSealer, type SealInput } from '../services/ingest/src/privacy/record-sealer.js'
import { ACCOUNTS, benchEvent, clickhousePid, exactCounts, kafkaPid, runReplayCli } from './replay.js'
import {
  benchTopics,
  cpuSeconds,
  ensureBuilt,
  reapedChildrenCpuSeconds,
  sampleMachineBusy,
  samplePeakRss,
  stackEnv,
} from './processes.js'

export interface SealedReplayOptions {
  records: number
  persons: number
  /** The topic's shape (personOf): 0, each person's records spread evenly over the topic; n, in sessions of
   *  n persons at a time. */
  sessions: number
  /** Replays of each topic, alternating clear and sealed. */
  rounds: number
  /** A30: the replay's threads (`--workers`), each count timed in every round. */
  workers: number[]
  say: (line: string) => void
  profileDir?: string
  /** Leave the topics for a later run's `reuse` (not deleted after). */
  keep?: boolean
  /** Replay the topics a `keep` run left under this TOPIC_EVENTS base instead of filling new ones. */
  reuse?: string
}

export interface SealedReplayRun {
  topic: 'clear' | 'sealed'
  workers: number
  records: number
  durationSec: number
  recordsPerSec: number
  /** The whole command's wall time: its start, the keys read, the replay, the hourly recount after it
   *  (U25), its exit. The replay's own rate (recordsPerSec) leaves all but the replay out. */
  commandSec: number
  deadLettered: number
  finalRows: number
  cpuUsPerRecord: number
  clickhouseUsPerRecord: number | null
  /** The Kafka broker's CPU over the run, µs a record. */
  kafkaUsPerRecord: number | null
  /** Cores the whole machine kept busy on average over the busiest stretch of the replay's length. */
  coresBusy: number
  /** The replay command's highest RSS, its child (A32) and threads included, sampled every 250 ms. */
  peakRssMiB: number
}

export interface SealedReplayFigures {
  records: number
  persons: number
  sessions: number
  keys: number
  /** The replay's threads when not asked (REPLAY_WORKERS): the runs the target is judged on. */
  defaultWorkers: number
  fill: { clearSec: number; sealedSec: number; clearBytes: number; sealedBytes: number }
  runs: SealedReplayRun[]
}

const SEND = 5_000
/** A24: people the filling sealer holds (PRIVACY_KEY_CACHE_ENTRIES). Twice the persons, so each gets one data
 *  key for the month, as the topic is meant to hold: ingest's two generations (A20) forget a person not met
 *  within half the entries, and this bench's persons come back only after all the others, so with ingest's
 *  default of 100,000 for 100,000 persons every record had a key of its own (1M keys; until A24 the bench ran
 *  that way). BENCH_SEALER_ENTRIES=100000 fills that worst case again. */
export const sealerEntries = (persons: number, env: Record<string, string | undefined>) =>
  Number(env.BENCH_SEALER_ENTRIES ?? 2 * persons)

/** The person of the topic's record `i`. `sessions` 0: every person's records spread evenly over the topic,
 *  each person back only after all the others (the worst case for the replay's held keys, A24). `sessions`
 *  n: n persons at a time send their records in turn, then the next n (a topic of real traffic: a person's
 *  events come in visits, and the visits under way at once are what the replay's keys must hold; BENCHMARKS.md
 *  derives n for a topic of 1,000,000 records of 100,000 persons). Either way every person has the same count. */
export function personOf(i: number, records: number, persons: number, sessions: number): number {
  if (sessions <= 0 || sessions >= persons) return i % persons
  const each = Math.max(1, Math.floor(records / persons))
  // Past persons * each (records not a multiple of persons), the topic starts over.
  const j = i % (persons * each)
  const first = Math.floor(j / (sessions * each)) * sessions
  return first + ((j - first * each) % Math.min(sessions, persons - first))
}

/** bench/replay.ts's event for person `person`, received in one month (one data key a person). */
export function personEvent(i: number, person: number, monthStart: number): EventRecord {
  const e = benchEvent(i, monthStart)
  const ts = monthStart + ((i * 7919) % (27 * 86_400)) * 1000
  return {
    ...e,
    account_id: `bench_acct_${person % ACCOUNTS}`,
    user_id: `user_${person}`,
    timestamp: ts,
    original_timestamp: ts,
    received_at: ts + 40,
  }
}

type Fill = (events: EventRecord[]) => Promise<Array<{ key: string; value: Buffer }>>

async function fillTopic(producer: Producer, topic: string, o: SealedReplayOptions, encode: Fill) {
  const now = new Date()
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)
  const t0 = Date.now()
  let bytes = 0
  for (let sent = 0; sent < o.records; ) {
    const count = Math.min(SEND, o.records - sent)
    const events = Array.from({ length: count }, (_, j) =>
      personEvent(sent + j, personOf(sent + j, o.records, o.persons, o.sessions), monthStart),
    )
    const messages = await encode(events)
    for (const m of messages) bytes += m.value.length
    await producer.send({ topic, acks: -1, messages })
    sent += count
  }
  return { sec: (Date.now() - t0) / 1000, bytes }
}

/** Fills the clear and the sealed topic with the same records; returns the keys written. */
async function fillBoth(
  clear: Record<string, string>,
  sealed: Record<string, string>,
  log: Logger,
  o: SealedReplayOptions,
) {
  const cfg = loadProjectorConfig(sealed)
  const { kafka, codec } = await openEventLog(cfg, 'bench-fill', log)
  await openEventLog(loadProjectorConfig(clear), 'bench-fill', log)
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  let keys = 0
  const sealer = new RecordSealer(
    cfg.privacy.masterKey,
    async (minted) => {
      keys += minted.length
      await producer.send({
        topic: cfg.topics.keys!,
        acks: -1,
        messages: minted.map((k) => ({ key: k.id, value: k.wrapped })),
      })
    },
    sealerEntries(o.persons, process.env),
  )
  const encodeClear = async (events: EventRecord[]) =>
    events.map((e) => ({ key: `${e.account_id}:${e.user_id}`, value: (codec as Codec).encode('Event', e) }))
  const encodeSealed = async (events: EventRecord[]) => {
    const items: SealInput[] = events.map((record) => ({ kind: 'event', record }))
    const out = await sealer.seal<EventRecord>(items)
    return out.map((s) => ({ key: s.key, value: codec.encode('Event', s.record) }))
  }
  try {
    o.say(`replay-sealed: filling ${clear.TOPIC_EVENTS} and ${sealed.TOPIC_EVENTS} (${o.records} records each)`)
    const c = await fillTopic(producer, clear.TOPIC_EVENTS!, o, encodeClear)
    const s = await fillTopic(producer, sealed.TOPIC_EVENTS!, o, encodeSealed)
    o.say(`replay-sealed: filled clear in ${c.sec}s, sealed in ${s.sec}s; ${keys} data keys on ${sealed.TOPIC_KEYS}`)
    return { keys, fill: { clearSec: c.sec, sealedSec: s.sec, clearBytes: c.bytes, sealedBytes: s.bytes } }
  } finally {
    await producer.disconnect()
  }
}

/** Runs the sealed-replay bench; the topics it makes are named after `env`'s TOPIC_EVENTS and deleted after
 *  (unless `keep` or `reuse`). */
export async function sealedReplayBench(
  env: Record<string, string>,
  log: Logger,
  o: SealedReplayOptions,
): Promise<SealedReplayFigures> {
  const base = o.reuse ?? env.TOPIC_EVENTS ?? `bench.${randomBytes(4).toString('hex')}.events`
  const variant = (name: string) => ({
    ...env,
    TOPIC_EVENTS: `${base}.${name}`,
    TOPIC_KEYS: `${base}.${name}.keys`,
  })
  const envs = { clear: variant('clear'), sealed: variant('sealed') }
  const cfg = loadProjectorConfig(envs.sealed)
  const ch = await createClickHouse(cfg.clickhouse)
  const chPid = clickhousePid(env)
  const brokerPid = kafkaPid(env)
  const runs: SealedReplayRun[] = []
  try {
    const filled = o.reuse
      ? { keys: 0, fill: { clearSec: 0, sealedSec: 0, clearBytes: 0, sealedBytes: 0 } }
      : await fillBoth(envs.clear, envs.sealed, log, o)
    if (o.keep) o.say(`replay-sealed: the topics stay for REUSE=${base}`)
    const order = o.workers.flatMap((workers) => (['clear', 'sealed'] as const).map((topic) => ({ topic, workers })))
    for (let round = 0; round < o.rounds; round++) {
      for (const { topic, workers } of order) {
        const db = `${cfg.clickhouse.database}_rs_${randomBytes(3).toString('hex')}`
        const argv = [
          '--topic',
          'events',
          '--target',
          'fresh',
          '--database',
          db,
          '--json',
          '--workers',
          String(workers),
        ]
        const cpu0 = reapedChildrenCpuSeconds()
        const ch0 = chPid === null ? null : cpuSeconds(chPid)
        const kafka0 = brokerPid === null ? null : cpuSeconds(brokerPid)
        const machineBusy = sampleMachineBusy()
        const rss = samplePeakRss()
        const t0 = performance.now()
        const report = await runReplayCli(argv, envs[topic], o.profileDir, o.say, (pid) => rss.watch(pid)).finally(
          () => {
            machineBusy.stop()
            rss.stop()
          },
        )
        const commandSec = Math.round((performance.now() - t0) / 100) / 10
        const cpuSec = reapedChildrenCpuSeconds() - cpu0
        const ch1 = chPid === null ? null : cpuSeconds(chPid)
        const kafka1 = brokerPid === null ? null : cpuSeconds(brokerPid)
        const s = report.summary
        const { finalRows } = await exactCounts(ch, report.database)
        await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` })
        runs.push({
          topic,
          workers,
          records: s.records,
          durationSec: Math.round(s.durationMs / 100) / 10,
          recordsPerSec: Math.round(s.rate),
          commandSec,
          deadLettered: s.deadLettered,
          finalRows,
          cpuUsPerRecord: Math.round((cpuSec * 1e6) / Math.max(1, s.records)),
          clickhouseUsPerRecord:
            ch0 === null || ch1 === null ? null : Math.round(((ch1 - ch0) * 1e6) / Math.max(1, s.records)),
          kafkaUsPerRecord:
            kafka0 === null || kafka1 === null ? null : Math.round(((kafka1 - kafka0) * 1e6) / Math.max(1, s.records)),
          coresBusy: Math.round(machineBusy.busiest(s.durationMs) * 100) / 100,
          peakRssMiB: rss.peakMiB(),
        })
        o.say(`replay-sealed ${topic}: ${JSON.stringify(runs.at(-1))}`)
      }
    }
    return {
      records: o.records,
      persons: o.persons,
      sessions: o.sessions,
      keys: filled.keys,
      defaultWorkers: cfg.replayWorkers,
      fill: filled.fill,
      runs,
    }
  } finally {
    await ch.close()
    if (!o.keep && !o.reuse) await cleanup(envs, log)
  }
}

/** Deletes every topic either variant's config names (the bench's own, by their names) and the live database. */
async function cleanup(envs: Record<string, Record<string, string>>, log: Logger): Promise<void> {
  const cfgs = Object.values(envs).map((e) => loadProjectorConfig(e))
  const names = [...new Set(cfgs.flatMap((c) => Object.values(c.topics)))].filter((t): t is string => !!t)
  const { kafka } = createEventLogClients(cfgs[0]!, 'bench-cleanup', log)
  const admin = kafka.admin()
  await admin.connect()
  const existing = new Set(await admin.listTopics())
  await admin.deleteTopics({ topics: names.filter((t) => existing.has(t)) }).catch(() => undefined)
  await admin.disconnect()
  const ch = await createClickHouse(cfgs[0]!.clickhouse)
  await ch.command({ query: `DROP DATABASE IF EXISTS ${cfgs[0]!.clickhouse.database}` })
  await ch.close()
}

/** One line a run, and the target's verdict. */
export function sealedReplayTable(f: SealedReplayFigures): string[] {
  const sealed = f.runs.filter((r) => r.topic === 'sealed' && r.workers === f.defaultWorkers)
  return [
    `replay-sealed: ${f.records} records, ${f.persons} persons ${f.sessions > 0 ? `in sessions of ${f.sessions} at a time` : 'spread evenly'}, ${f.keys} data keys; fill clear ${f.fill.clearSec}s (${Math.round(f.fill.clearBytes / f.records)} B/record), sealed ${f.fill.sealedSec}s (${Math.round(f.fill.sealedBytes / f.records)} B/record)`,
    [
      'topic',
      'threads',
      'records',
      'seconds',
      'records/s',
      'command s',
      'dlq',
      'FINAL rows',
      'cpu µs/rec',
      'ch µs/rec',
      'kafka µs/rec',
      'cores busy',
      'peak RSS MiB',
    ].join('\t'),
    ...f.runs.map((r) =>
      [
        r.topic,
        r.workers,
        r.records,
        r.durationSec,
        r.recordsPerSec,
        r.commandSec,
        r.deadLettered,
        r.finalRows,
        r.cpuUsPerRecord,
        r.clickhouseUsPerRecord ?? '-',
        r.kafkaUsPerRecord ?? '-',
        r.coresBusy,
        r.peakRssMiB,
      ].join('\t'),
    ),
    `  ${sealed.length > 0 && sealed.every((r) => r.recordsPerSec >= 80_000) ? 'met ' : 'MISS'} sealed replay >= 80,000 records/s (${f.defaultWorkers} thread(s), the default)`,
  ]
}

if (process.argv[1]?.endsWith('replay-sealed.ts')) {
  // A reused base keeps its run's other topics (erasures, accounts, ...): the same id.
  const id = /^bench\.([^.]+)\./.exec(process.env.REUSE ?? '')?.[1] ?? randomBytes(4).toString('hex')
  const env = {
    ...stackEnv(process.env as Record<string, string>),
    ...benchTopics(id),
    CLICKHOUSE_DATABASE: `bench_${id}`,
    LOG_LEVEL: 'warn',
  }
  const say = (line: string) => process.stderr.write(`${line}\n`)
  await ensureBuilt()
  const figures = await sealedReplayBench(env, createLogger('warn', { service: 'bench' }), {
    records: Number(process.argv[2] ?? 1_000_000),
    persons: Number(process.argv[3] ?? 100_000),
    sessions: Number(process.env.SESSIONS ?? 0),
    rounds: Number(process.env.ROUNDS ?? 2),
    workers: (process.env.WORKERS ?? '1,2').split(',').map(Number),
    say,
    profileDir: process.env.PROFILE_DIR,
    keep: process.env.KEEP === '1',
    reuse: process.env.REUSE || undefined,
  })
  process.stdout.write(`${sealedReplayTable(figures).join('\n')}\n`)
}
