// The faults the drill injects, one at a time (docs/reliability.md). Each reports notes (how long a restart or
// drain took) and problems (a drain that did not finish), which fail the run; the drill measures
// everything else from the load's answers.
import { randomBytes } from 'node:crypto'
import { DEV_MASTER_KEY } from '../../services/shared/src/privacy/crypto/index.js'
import { rewrapWith } from '../privacy/rewrap-cli.js'
import type { OwnStack } from './own-stack.js'
import type { ManagedService } from './services.js'

export const FAULT_NAMES = [
  'ingest-kill',
  'ingest-term',
  'projector-kill',
  'kafka-kill',
  'kafka-stall',
  'clickhouse-down',
  'registry-down',
  'master-rotation',
] as const
export type FaultName = (typeof FAULT_NAMES)[number]

export interface FaultContext {
  stack: OwnStack
  ingest: ManagedService
  projector: ManagedService
  stallSeconds: number
  outageSeconds: number
  /** The services' environment; a fault that changes a setting for good changes it here too (the
   *  reconciliation and later restarts read it). */
  env: Record<string, string>
  say(msg: string): void
}

export interface FaultReport {
  notes: string[]
  problems?: string[]
}

export interface Fault {
  name: FaultName
  title: (ctx: Pick<FaultContext, 'stallSeconds' | 'outageSeconds'>) => string
  inject(ctx: FaultContext): Promise<FaultReport>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

export const FAULTS: Record<FaultName, Fault> = {
  'ingest-kill': {
    name: 'ingest-kill',
    title: () => 'SIGKILL ingest (+restart)',
    async inject({ ingest }) {
      await ingest.signal('SIGKILL')
      const ms = await ingest.startHealthy()
      return { notes: [`ingest healthy again ${secs(ms)} after its restart`] }
    },
  },
  'ingest-term': {
    name: 'ingest-term',
    title: () => 'SIGTERM ingest (drain, +restart)',
    async inject({ ingest }) {
      const drain = await ingest.signal('SIGTERM', 30_000)
      const ms = await ingest.startHealthy()
      return {
        notes: [
          ...(drain.forced ? [] : [`ingest drained and exited in ${secs(drain.ms)}`]),
          `healthy again ${secs(ms)} after its restart`,
        ],
        problems: drain.forced ? ['ingest did not exit within 30 s of SIGTERM (no graceful drain) and was killed'] : [],
      }
    },
  },
  'projector-kill': {
    name: 'projector-kill',
    title: () => 'SIGKILL projector (+restart)',
    async inject({ projector }) {
      await projector.signal('SIGKILL')
      const ms = await projector.startHealthy()
      return { notes: [`projector healthy again ${secs(ms)} after its restart`] }
    },
  },
  'kafka-kill': {
    name: 'kafka-kill',
    title: () => 'SIGKILL Kafka (+restart)',
    async inject({ stack, say }) {
      await stack.kill('kafka')
      const t0 = Date.now()
      await stack.up((err) => say(`stack start failed; retrying once: ${err.message.split('\n')[0]}`))
      return { notes: [`Kafka ready again ${secs(Date.now() - t0)} after the kill`] }
    },
  },
  'kafka-stall': {
    name: 'kafka-stall',
    title: ({ stallSeconds }) => `Kafka stalled ${stallSeconds} s (SIGSTOP/SIGCONT)`,
    async inject({ stack, stallSeconds }) {
      stack.signal('kafka', 'SIGSTOP')
      try {
        await sleep(stallSeconds * 1000)
      } finally {
        stack.signal('kafka', 'SIGCONT')
      }
      return { notes: [] }
    },
  },
  'clickhouse-down': {
    name: 'clickhouse-down',
    title: ({ outageSeconds }) => `ClickHouse down ${outageSeconds} s`,
    async inject({ stack, outageSeconds, say }) {
      const t0 = Date.now()
      await stack.stop('clickhouse')
      await sleep(Math.max(0, outageSeconds * 1000 - (Date.now() - t0)))
      const t1 = Date.now()
      await stack.up((err) => say(`stack start failed; retrying once: ${err.message.split('\n')[0]}`))
      return { notes: [`ClickHouse ready ${secs(Date.now() - t1)} after its start`] }
    },
  },
  'registry-down': {
    name: 'registry-down',
    title: ({ outageSeconds }) => `registry down ${outageSeconds} s, projector restarted meanwhile`,
    async inject({ stack, projector, outageSeconds, say }) {
      const t0 = Date.now()
      await stack.stop('registry')
      const drain = await projector.signal('SIGTERM', 30_000)
      projector.start()
      // The projector should wait for the registry (H27); give it until the outage ends.
      const healthy = projector.waitHealthy(Math.max(1000, outageSeconds * 1000 - (Date.now() - t0))).then(
        () => 'healthy while the registry was down',
        () =>
          projector.alive()
            ? 'not healthy while the registry was down (still running)'
            : `exited while the registry was down`,
      )
      const state = await healthy
      say(`projector ${state}`)
      await sleep(Math.max(0, outageSeconds * 1000 - (Date.now() - t0)))
      const t1 = Date.now()
      await stack.up((err) => say(`stack start failed; retrying once: ${err.message.split('\n')[0]}`))
      return {
        notes: [
          ...(drain.forced ? [] : [`projector drained in ${secs(drain.ms)}`]),
          `restarted projector ${state}`,
          `registry ready ${secs(Date.now() - t1)} after its start`,
        ],
        problems: drain.forced
          ? ['projector did not exit within 30 s of SIGTERM (no graceful drain) and was killed']
          : [],
      }
    },
  },
  'master-rotation': {
    name: 'master-rotation',
    title: () => 'master key rotated (services restarted with a new one, rewrap)',
    // A35, docs/privacy.md "Rotating the master key": a new master, the old one kept to open keys and the
    // pseudonyms kept, each service drained and restarted in turn under load, then every key re-wrapped.
    async inject({ ingest, projector, env }) {
      const old = env.PRIVACY_MASTER_KEY || DEV_MASTER_KEY
      const rotation = {
        PRIVACY_MASTER_KEY: randomBytes(32).toString('base64'),
        PRIVACY_OLD_MASTER_KEY: old,
        PRIVACY_PSEUDONYM_KEY: env.PRIVACY_PSEUDONYM_KEY || old,
      }
      Object.assign(env, rotation)
      const notes: string[] = []
      const problems: string[] = []
      for (const service of [ingest, projector]) {
        service.setEnv(rotation)
        const drain = await service.signal('SIGTERM', 30_000)
        const ms = await service.startHealthy()
        notes.push(`${service.name} restarted with the new master, healthy ${secs(ms)} after its start`)
        if (drain.forced) problems.push(`${service.name} did not exit within 30 s of SIGTERM and was killed`)
      }
      const t0 = Date.now()
      const s = await rewrapWith({ ...process.env, ...env, LOG_LEVEL: 'error' }, false, () => undefined)
      notes.push(
        `rewrap: ${s.rewrapped} keys of the old master written again, ${s.current} of the new one read, in ${secs(Date.now() - t0)}`,
      )
      if (s.unopened > 0) problems.push(`rewrap found ${s.unopened} keys no master given opens`)
      if (s.rewrapped === 0) problems.push('rewrap found no key of the old master: the rotation was not exercised')
      return { notes, problems }
    },
  },
}
