// Telling "the dependency is not there (yet)" from "the dependency answered no", for waitFor's
// retryIf: the first is waited out, the second is a real error (a bad migration, a refused topic
// config) that waiting would only hide.
import { KafkaErrors } from './kafka/client.js'
// The registry client's own errors (incompatible or invalid schema, bad argument) are not re-exported by its index.
import { ConfluentSchemaRegistryError } from '@kafkajs/confluent-schema-registry/dist/errors.js'
import { RegistryUnavailableError } from '../../../schemas/codec.js'
import { TopicConfigError } from './kafka.js'
import { CH_ERRORS, serverErrorCode } from '../../../schemas/clickhouse/server-error.js'

const { ProtocolError: KafkaJSProtocolError, SASLAuthenticationError: KafkaJSSASLAuthenticationError } = KafkaErrors

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
])
const NETWORK_TEXT =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|EAI_AGAIN|ENOTFOUND|socket hang up|Timeout error|timed out/i

function* chain(err: unknown): Generator<any> {
  for (let e: any = err, depth = 0; e && depth < 8; e = e.cause, depth++) yield e
}

function isProgrammerError(err: unknown): boolean {
  return err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError
}

/** A socket-level failure (refused, reset, timed out, no route, no DNS) anywhere in the cause chain. */
export function isConnectionError(err: unknown): boolean {
  for (const e of chain(err)) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true
    if (typeof e.message === 'string' && NETWORK_TEXT.test(e.message)) return true
  }
  return false
}

/** ClickHouse is unreachable or overloaded, as opposed to refusing the statement (SQL, checksum). */
// On a cluster (H45): a replica, a whole shard or ZooKeeper is down, so a quorum insert cannot complete
// (or its outcome is unknown: 319, which the retry settles, FINAL collapsing a copy); each passes when
// the server is back, like an unreachable single server.
const CLUSTER_AWAY: number[] = [
  CH_ERRORS.TABLE_IS_READ_ONLY,
  CH_ERRORS.ALL_CONNECTION_TRIES_FAILED,
  CH_ERRORS.TOO_FEW_LIVE_REPLICAS,
  CH_ERRORS.UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE,
  CH_ERRORS.UNKNOWN_STATUS_OF_INSERT,
  CH_ERRORS.NO_ZOOKEEPER,
  CH_ERRORS.KEEPER_EXCEPTION,
]

export function isClickHouseUnavailable(err: unknown): boolean {
  if (isProgrammerError(err)) return false
  const code = serverErrorCode(err)
  if (code === undefined) return isConnectionError(err)
  const transient: number[] = [
    CH_ERRORS.TOO_MANY_SIMULTANEOUS_QUERIES,
    CH_ERRORS.TIMEOUT_EXCEEDED,
    CH_ERRORS.MEMORY_LIMIT_EXCEEDED,
    CH_ERRORS.NETWORK_ERROR,
    CH_ERRORS.SOCKET_TIMEOUT,
    CH_ERRORS.TOO_MANY_PARTS,
  ]
  return transient.includes(code) || CLUSTER_AWAY.includes(code)
}

/** Kafka cannot be reached or is not ready (kafkajs gave up retrying, no broker, no coordinator);
 * not a broker's permanent refusal (a topic config it rejects, failed authentication). */
export function isKafkaUnavailable(err: unknown): boolean {
  if (isProgrammerError(err)) return false
  if (err instanceof KafkaJSSASLAuthenticationError) return false
  if (err instanceof TopicConfigError) return false
  if (err instanceof KafkaJSProtocolError && !err.retriable) return false
  return true
}

/** Whether a registry call failed for want of an answer (worth waiting out) rather than being
 * refused (an incompatible schema, a bad request). The registry client reports a network failure
 * as status 400 with the socket error as its text. */
export function isRegistryUnavailable(err: unknown): boolean {
  if (isProgrammerError(err)) return false
  if (err instanceof RegistryUnavailableError) return true
  const status = (err as { status?: unknown })?.status
  if (typeof status !== 'number') return !(err instanceof ConfluentSchemaRegistryError)
  if (status >= 500 || status === 408 || status === 429) return true
  return status === 400 && (isConnectionError(err) || /timeout/i.test(String((err as Error).message)))
}
