import t from 'tap'
import { KafkaErrors } from './kafka/client.js'
import { TopicConfigError } from './kafka.js'
import { isClickHouseUnavailable, isConnectionError, isKafkaUnavailable, isRegistryUnavailable } from './unavailable.js'
import { ConfluentSchemaRegistryCompatibilityError } from '@kafkajs/confluent-schema-registry/dist/errors.js'

const {
  ConnectionError: KafkaJSConnectionError,
  NumberOfRetriesExceeded: KafkaJSNumberOfRetriesExceeded,
  ProtocolError: KafkaJSProtocolError,
} = KafkaErrors
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18123'), { code: 'ECONNREFUSED' })

t.test('connection errors, also when wrapped', async (t) => {
  t.ok(isConnectionError(refused()))
  t.ok(isConnectionError(new Error('outer', { cause: new Error('inner', { cause: refused() }) })))
  t.ok(isConnectionError(new Error('socket hang up')))
  t.notOk(isConnectionError(new Error('Code: 62. Syntax error')))
})

t.test('ClickHouse: unreachable or overloaded is waited for, a refused statement is not', async (t) => {
  t.ok(isClickHouseUnavailable(new Error('ClickHouse did not answer', { cause: refused() })))
  t.ok(isClickHouseUnavailable(Object.assign(new Error('Too many simultaneous queries'), { code: '202' })))
  t.notOk(isClickHouseUnavailable(Object.assign(new Error('Syntax error'), { code: '62' })))
  t.notOk(isClickHouseUnavailable(new Error("Code: 60, e.displayText() = DB::Exception: Table x.y doesn't exist")))
  t.notOk(
    isClickHouseUnavailable(
      Object.assign(new Error('migration 001 was applied with checksum a'), { code: 'CHECKSUM_MISMATCH' }),
    ),
  )
  t.notOk(isClickHouseUnavailable(new TypeError('x is undefined')))
})

t.test('Kafka: no broker is waited for, a permanent refusal is not', async (t) => {
  t.ok(isKafkaUnavailable(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:19092')))
  t.ok(
    isKafkaUnavailable(
      new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('refused'), { retryCount: 5, retryTime: 100 }),
    ),
  )
  t.notOk(
    isKafkaUnavailable(
      new KafkaJSProtocolError({
        message: 'Replication-factor is invalid',
        type: 'INVALID_REPLICATION_FACTOR',
        code: 38,
        retriable: false,
      } as any),
    ),
  )
  t.notOk(isKafkaUnavailable(new RangeError('bad')))
  t.notOk(
    isKafkaUnavailable(new TopicConfigError('could not create topics (x: Replication-factor is invalid)')),
    'topics the broker refuses as asked',
  )
})

const responseError = (status: number, message: string) =>
  Object.assign(new Error(`Confluent_Schema_Registry - ${message}`), { status })

t.test('registration: a registry away is waited for, a refused schema is not', async (t) => {
  t.ok(isRegistryUnavailable(responseError(400, 'Error, status 400: connect ECONNREFUSED 127.0.0.1:18081')))
  t.ok(isRegistryUnavailable(responseError(502, 'Bad Gateway')))
  t.notOk(isRegistryUnavailable(responseError(409, 'Schema being registered is incompatible')))
  t.notOk(isRegistryUnavailable(responseError(422, 'Invalid schema')))
  t.notOk(isRegistryUnavailable(new ConfluentSchemaRegistryCompatibilityError('incompatible')))
  t.notOk(isRegistryUnavailable(new TypeError('bug')))
})

t.test("a cluster's replica, shard or ZooKeeper away is unavailability, waited out (H45)", async (t) => {
  // As 18.16 words them (no "(TYPE_NAME)" marker), seen with a replica or ZooKeeper SIGKILLed.
  t.ok(
    isClickHouseUnavailable(
      new Error(
        'Code: 319, e.displayText() = DB::Exception: Unknown status, client must retry. Reason: Code: 159, e.displayText() = DB::Exception: Timeout while waiting for quorum',
      ),
    ),
  )
  t.ok(
    isClickHouseUnavailable(
      new Error(
        'Code: 285, e.displayText() = DB::Exception: Number of alive replicas (1) is less than requested quorum (2).',
      ),
    ),
  )
  t.ok(isClickHouseUnavailable(new Error('Code: 242, e.displayText() = DB::Exception: Table is in readonly mode')))
  t.notOk(
    isClickHouseUnavailable(new Error("Code: 60, e.displayText() = DB::Exception: Table db.events doesn't exist.")),
  )
})
