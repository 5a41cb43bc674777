import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client'
import { redactUrl, type CommonConfig } from './env.js'
import type { Logger } from './log.js'
import { isClickHouseUnavailable } from './unavailable.js'
import { waitFor, type WaitOptions } from './wait-for.js'
import { CodedError } from './errors.js'

/**
 * How long one request of a migration may run. A migration can copy a whole table (006_retry_ids.sql
 * backfills retry_ids from events and identifies: on 18.16 about half an hour for a billion rows), and the client gives up on a request after its request_timeout while the server
 * goes on: the migration would count as failed, be run again, and never finish.
 */
export const MIGRATION_TIMEOUT_MS = 6 * 3600_000

/** Builds the ClickHouse client at the edge; no I/O (the server may not be up yet). */
export function openClickHouse(
  cfg: CommonConfig['clickhouse'],
  opts: { requestTimeoutMs?: number } = {},
): ClickHouseClient {
  return createClient({
    url: cfg.url,
    username: cfg.username,
    password: cfg.password,
    request_timeout: opts.requestTimeoutMs ?? 60_000,
    max_open_connections: 16,
    keep_alive: { enabled: true },
    // Failures surface as typed errors to the caller, which logs them once; the client's own logger would repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  })
}

/** A query's rows, each an object (JSONEachRow). */
export async function queryRows<T>(ch: Pick<ClickHouseClient, 'query'>, query: string): Promise<T[]> {
  return (await ch.query({ query, format: 'JSONEachRow' })).json<T>()
}

/** SELECT 1, with the URL (without credentials) in the error when the server does not answer. */
export async function checkClickHouse(client: ClickHouseClient, url: string): Promise<void> {
  try {
    await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((r) => r.json())
  } catch (err) {
    throw new CodedError(
      'CLICKHOUSE_UNAVAILABLE',
      `ClickHouse at ${redactUrl(url)} did not answer SELECT 1: ${(err as Error).message}`,
      { status: 503, retriable: true, cause: err },
    )
  }
}

/** Creates the ClickHouse client at the edge and checks the server answers (SELECT 1) once. */
export async function createClickHouse(cfg: CommonConfig['clickhouse']): Promise<ClickHouseClient> {
  const client = openClickHouse(cfg)
  try {
    await checkClickHouse(client, cfg.url)
  } catch (err) {
    await client.close()
    throw err
  }
  return client
}

/**
 * Runs `step` (SELECT 1 by default; the projector passes its migrations) until ClickHouse answers,
 * waiting with backoff while it is unreachable (readiness 'clickhouse'). A statement the server
 * refuses is thrown at once.
 */
export function waitForClickHouse<T = void>(
  client: ClickHouseClient,
  url: string,
  log: Logger,
  opts: Omit<WaitOptions, 'retryIf'> & { step?: () => Promise<T> } = {},
): Promise<T> {
  const step = opts.step ?? (() => checkClickHouse(client, url) as Promise<T>)
  return waitFor('clickhouse', step, log, { ...opts, retryIf: isClickHouseUnavailable })
}
