import t from 'tap'
import { AppError, CodedError, isRetriable } from './errors.js'
import { ConfigError } from './env.js'
import { WaitAbortedError } from './wait-for.js'

t.test('an AppError carries code, status, retriable and cause', async (t) => {
  const cause = new Error('socket hang up')
  const e = new CodedError('CLICKHOUSE_UNAVAILABLE', 'no answer', { status: 503, retriable: true, cause })
  t.ok(e instanceof AppError)
  t.same([e.code, e.status, e.retriable, e.cause, e.name], ['CLICKHOUSE_UNAVAILABLE', 503, true, cause, 'CodedError'])
  const c = new ConfigError('INGEST_PORT', 'must be an integer')
  t.same([c.code, c.status, c.retriable, c.name], ['CONFIG_INVALID', 500, false, 'ConfigError'])
})

t.test('isRetriable: AppErrors say so, programmer errors never, third-party flags are believed', async (t) => {
  t.equal(isRetriable(new CodedError('X', 'x', { retriable: true })), true)
  t.equal(isRetriable(new WaitAbortedError('kafka', undefined)), false)
  t.equal(isRetriable(new TypeError('x is undefined')), false)
  t.equal(isRetriable(Object.assign(new Error('kafkajs'), { retriable: false })), false)
  t.equal(isRetriable(new Error('ECONNREFUSED')), true)
})
