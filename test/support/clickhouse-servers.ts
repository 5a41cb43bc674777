// The ClickHouse servers the projector's storage tests run against (A6): the 18.16 the local stack
// runs by default (CLICKHOUSE_URL) and a current release (CLICKHOUSE_CURRENT_URL, the ClickHouse 26.9
// that stack.sh starts from chdb-core). They differ where it matters: current releases refuse an
// INSERT over `max_partitions_per_insert_block` partitions, 18.16 has no such limit (H26). A server
// that does not answer fails the test that needs it, never skips it: CI starts both.
import { DEFAULT_CLICKHOUSE_URL } from './clickhouse-helpers.js'

export const DEFAULT_CLICKHOUSE_CURRENT_URL = 'http://127.0.0.1:18223'

export interface ClickHouseServer {
  name: string
  /** The environment that points a service or a test database at it. */
  env: Record<string, string>
}

export function clickhouseServers(env: NodeJS.ProcessEnv = process.env): ClickHouseServer[] {
  return [
    { name: '18.16', env: { CLICKHOUSE_URL: env.CLICKHOUSE_URL || DEFAULT_CLICKHOUSE_URL } },
    {
      name: 'current',
      env: {
        CLICKHOUSE_URL: env.CLICKHOUSE_CURRENT_URL || DEFAULT_CLICKHOUSE_CURRENT_URL,
        CLICKHOUSE_USER: env.CLICKHOUSE_CURRENT_USER || 'default',
        CLICKHOUSE_PASSWORD: env.CLICKHOUSE_CURRENT_PASSWORD || '',
      },
    },
  ]
}

/** Throws, naming the server, when it does not answer /ping: a service started against it would wait for it instead of failing. */
export async function assertAnswers(server: ClickHouseServer): Promise<void> {
  const url = server.env.CLICKHOUSE_URL!
  const ok = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false)
  if (!ok) throw new Error(`ClickHouse ${server.name} does not answer at ${url} (stack.sh up starts it; CLICKHOUSE_URL, CLICKHOUSE_CURRENT_URL)`)
}
