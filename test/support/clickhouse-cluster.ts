// The cluster profile's ClickHouse for integration tests (docs/design.md A10): ZooKeeper and four
// 18.16 servers, two shards of two replicas, started by `stack.sh clickhouse-up --profile cluster` when
// they are not running. CLUSTER_DIR and
// CLUSTER_PORT_BASE choose which profile, as for stack.sh (default .stack/cluster, 25000).

import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { migrate } from '../../schemas/clickhouse/migrate.js'
import type { TeardownHost } from './clickhouse-helpers.js'

const ROOT = join(import.meta.dirname, '..', '..')
export const CLUSTER = 'tracking'
export const NODES = [1, 2, 3, 4] as const
export type Node = (typeof NODES)[number]

const base = Number(process.env.CLUSTER_PORT_BASE || 25000)
const dir = process.env.CLUSTER_DIR || join(ROOT, '.stack', 'cluster')

/** The profile's ZooKeeper (deploy/local/cluster/clickhouse.sh: base + 181). */
export const zookeeperPort = () => base + 181

/** ch-N's HTTP port: deploy/local/cluster/clickhouse.sh (base + 120 + N). */
export function nodeUrl(n: Node): string {
  return `http://127.0.0.1:${base + 120 + n}`
}

async function ping(n: Node): Promise<boolean> {
  try {
    return (await (await fetch(`${nodeUrl(n)}/ping`)).text()) === 'Ok.\n'
  } catch {
    return false
  }
}

async function script(cmd: 'clickhouse-up'): Promise<void> {
  // One start at a time (test files run two at a time, each starting what is down): flock(1), whose -o keeps
  // the lock from the servers the script leaves running.
  mkdirSync(join(dir, 'run'), { recursive: true })
  await promisify(execFile)(
    'flock',
    [
      '-o',
      join(dir, 'run', 'clickhouse-start.lock'),
      'bash',
      join(ROOT, 'deploy/local/stack.sh'),
      cmd,
      '--profile',
      'cluster',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, CLUSTER_DIR: dir, CLUSTER_PORT_BASE: String(base) },
      timeout: 300_000,
    },
  )
}

/** Starts whatever of ZooKeeper and the four servers is down (a killed server too). */
export const clusterUp = () => script('clickhouse-up')

/** A server log line's time (`2026.12.06 01:18:16.021683`, the server's local time, this machine's). */
function logTime(line: string): number {
  const m = /^(\d{4})\.(\d{2})\.(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(line)
  return m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!).getTime() : Number.NaN
}

/**
 * The servers whose DDL worker has ended since they started. 18.16's DDLWorker ends its thread on an
 * unexpected error (`DDLWorker: Unexpected ZooKeeper error: ... Node exists ... Terminating.`: two replicas
 * of a shard racing on the executed marker of a replicated `ALTER ... ON CLUSTER`, an 18.16 bug, docs/design.md
 * U22) while the server goes on answering, so every later distributed DDL waits for it until its
 * distributed_ddl_task_timeout, test after test. The server's log says so; its pid file's time is its start.
 */
export function deadDdlWorkers(): Node[] {
  return NODES.filter((n) => {
    let started: number
    let log: string
    try {
      started = statSync(join(dir, 'run', `clickhouse-${n}.pid`)).mtimeMs
      log = readFileSync(join(dir, 'logs', `clickhouse-${n}-server.log`), 'utf8')
    } catch {
      return false
    }
    // The error's message (its stack trace) ends with ". Terminating." before the next entry of the log.
    let since = Number.NaN
    for (const line of log.split('\n')) {
      if (line.includes('<Error> DDLWorker: Unexpected')) since = logTime(line)
      else if (line.startsWith('. Terminating.') && since >= Math.floor(started / 1000) * 1000) return true
      else if (!Number.isNaN(logTime(line))) since = Number.NaN
    }
    return false
  })
}

/** Restarts each server whose DDL worker has ended (deadDdlWorkers); its worker then runs what is queued. */
export async function reviveDdlWorkers(): Promise<Node[]> {
  const dead = deadDdlWorkers()
  for (const n of dead) {
    process.stderr.write(`# clickhouse-${n}: its DDL worker ended (18.16's "Node exists" race); restarting it\n`)
    await killNode(n)
  }
  if (dead.length > 0) await clusterUp()
  return dead
}

/**
 * Starts the cluster's ClickHouse unless it runs, and leaves it running, as `npm test` leaves the single-node
 * stack: test files run two at a time and share it (starts are serialised), so none may
 * stop it under another. `stack.sh clickhouse-down --profile cluster` stops it.
 */
export async function ensureCluster(): Promise<void> {
  const running = (await Promise.all(NODES.map(ping))).every(Boolean)
  if (!running) await clusterUp()
  await reviveDdlWorkers()
}

/**
 * Holds the cluster for this test file until it ends: shared by files that only use it, exclusive for one
 * that kills a server (another file's quorum insert would fail meanwhile). A `flock` process holds the lock
 * (flock(1) from util-linux); ending its input releases it.
 */
export async function holdCluster(t: TeardownHost, mode: 'shared' | 'exclusive'): Promise<void> {
  mkdirSync(join(dir, 'run'), { recursive: true })
  const holder = spawn(
    'flock',
    [mode === 'shared' ? '-s' : '-x', join(dir, 'run', 'tests.lock'), '-c', 'echo held; cat >/dev/null'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve())
    holder.once('exit', (code) => reject(new Error(`flock exited (${code}) before holding the cluster's test lock`)))
  })
  t.teardown(() => void holder.stdin.end())
}

/** SIGKILLs ch-N (its pid file is cluster.sh's) and waits until it is gone. */
export async function killNode(n: Node): Promise<void> {
  const pid = Number(readFileSync(join(dir, 'run', `clickhouse-${n}.pid`), 'utf8').trim())
  process.kill(pid, 'SIGKILL')
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`clickhouse-${n} (pid ${pid}) did not exit after SIGKILL`)
}

export function nodeClient(n: Node): ClickHouseClient {
  // The services' request timeout (services/shared/src/clickhouse.ts), above the quorum's (H45).
  return createClient({ url: nodeUrl(n), username: 'default', password: '', request_timeout: 60_000 })
}

/** A fresh database on every server, migrated in cluster mode through ch-1, dropped ON CLUSTER at the end. */
export async function createClusterDatabase(
  t: TeardownHost,
  prefix: string,
): Promise<{ client: ClickHouseClient; database: string }> {
  const database = `test_${prefix}_${randomBytes(6).toString('hex')}`
  const client = nodeClient(1)
  // The migrations run ON CLUSTER: each statement waits for all four servers through ZooKeeper, which on
  // two shared cores under a full test run took longer than the services' 60 s request timeout. The
  // server bounds each with its distributed_ddl_task_timeout (180 s), so the client waits longer than that.
  const ddl = createClient({ url: nodeUrl(1), username: 'default', password: '', request_timeout: 200_000 })
  let reviving: Promise<Node[]> | undefined
  try {
    // A server restarted by the file before (a kill test) answers pings before its DDL worker is back
    // in ZooKeeper; the statement then times out with that host "not active". Start what is down and try
    // again (the migrations are idempotent: each records itself, and the DDL says IF NOT EXISTS).
    for (let attempt = 1; ; attempt++) {
      // A DDL worker ended by one of these statements (deadDdlWorkers) is restarted at once, instead of
      // each statement waiting out its 180 s: the statement then completes, or fails with the restarted
      // ch-1 and is run again.
      const watch = setInterval(() => {
        reviving ??= reviveDdlWorkers().finally(() => {
          reviving = undefined
        })
      }, 1_000)
      try {
        await migrate(ddl, database, { cluster: CLUSTER })
        break
      } catch (err) {
        if (attempt >= 3) throw err
        await reviving
        await clusterUp()
      } finally {
        clearInterval(watch)
      }
    }
    await reviving
  } finally {
    await ddl.close()
  }
  t.teardown(async () => {
    try {
      await reviveDdlWorkers()
      await client.command({ query: `DROP DATABASE IF EXISTS ${database} ON CLUSTER ${CLUSTER}` })
    } finally {
      await client.close()
    }
  })
  return { client, database }
}
