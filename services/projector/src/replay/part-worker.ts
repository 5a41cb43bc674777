// A30: one part of a replay spread over threads (workers.ts starts it). It loads what a replay reads
// first (inputs.ts: erasures, retention, the data keys on from the main thread's shared table (A33), the
// stored ids), says it is ready, waits for the word to start, so that every part's stored ids are read
// before any part writes (H16), then replays its share of the partitions into the target database with
// the one-part replayer.
import { parentPort, workerData } from 'node:worker_threads'
import type { Level, Logger } from '../../../shared/src/log.js'
import { serializeError } from '../../../shared/src/log.js'
import type { PipelineMetrics } from '../consume/projection.js'
import type { ProjectorConfig } from '../config.js'
import { loadReplayInputs, openReplayClients, storedIdFilter } from './inputs.js'
import { replay } from './replayer.js'
import type { PartMessage, PartTask } from './workers.js'

const port = parentPort!
const task = workerData as PartTask
const post = (m: PartMessage) => port.postMessage(m)

/** Log entries go to the replay's own logger, in the main thread, as plain fields. */
function forwardingLogger(base: Record<string, unknown> = {}): Logger {
  const plain = (v: unknown): unknown =>
    JSON.parse(
      JSON.stringify(v, (_k, x) => (x instanceof Error ? serializeError(x) : typeof x === 'bigint' ? String(x) : x)),
    )
  const emit = (level: Level) => (msg: string, fields?: Record<string, unknown>) =>
    post({ kind: 'log', level, msg, fields: plain({ ...base, ...fields }) as Record<string, unknown> })
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (f) => forwardingLogger({ ...base, ...f }),
  }
}

/** Rows, inserts and dead letters, counted by the main thread's metrics. */
const metrics: PipelineMetrics = {
  dlq: (n) => post({ kind: 'metric', name: 'dlq', args: [n] }),
  schemaMissing: () => post({ kind: 'metric', name: 'schemaMissing', args: [] }),
  inserted: (events, identifies, seconds) =>
    post({ kind: 'metric', name: 'inserted', args: [events, identifies, seconds] }),
}

/** A Buffer crosses to a thread as a plain Uint8Array: the master keys are made Buffers again. */
function configOf(cfg: ProjectorConfig): ProjectorConfig {
  const buffer = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, key.length)
  const { masterKey, oldMasterKeys, pseudonymKey } = cfg.privacy
  return {
    ...cfg,
    privacy: {
      ...cfg.privacy,
      masterKey: buffer(masterKey),
      oldMasterKeys: oldMasterKeys.map(buffer),
      pseudonymKey: buffer(pseudonymKey),
    },
  }
}

async function run(): Promise<void> {
  const cfg = configOf(task.cfg)
  const log = forwardingLogger()
  const note = task.notes ? (line: string) => post({ kind: 'note', line }) : () => undefined
  const clients = await openReplayClients(cfg, log)
  try {
    const inputs = await loadReplayInputs(cfg, clients, {
      log,
      note,
      metrics: task.metrics ? metrics : undefined,
      now: () => task.at,
      keys: task.keys,
    })
    try {
      const stored = await storedIdFilter(clients.ch, task.database, task.planned, note, log)
      const go = new Promise<void>((resolve) => port.once('message', () => resolve()))
      post({ kind: 'ready' })
      await go
      const summary = await replay(inputs.deps(task.database, stored.filter), {
        ...task.options,
        ranges: task.ranges,
        rows: stored.rows,
        onProgress: (p) => post({ kind: 'progress', progress: p }),
      })
      post({ kind: 'done', summary })
    } finally {
      await inputs.stop()
    }
  } finally {
    await clients.close()
  }
}

await run()
