import t from 'tap'
import { parseOptions, QUICK_FAULTS, OptionsError } from './options.js'
import { FAULT_NAMES } from './faults.js'

const ROOT = '/repo'

t.test('defaults: every fault, 120 events/s, its own stack directory and ports', async (t) => {
  const o = parseOptions([], {}, ROOT)
  t.same(o.faults, [...FAULT_NAMES])
  t.equal(o.rate, 120)
  t.equal(o.stackDir, '/repo/.stack-drill')
  t.same(o.ports, {
    kafka: 29092,
    kafkaController: 29093,
    registry: 28081,
    clickhouseHttp: 28123,
    clickhouseTcp: 29000,
    ingest: 28080,
    ingestAdmin: 28090,
    projector: 28082,
  })
  t.equal(o.stallSeconds, 40)
  t.equal(o.outageSeconds, 30)
  t.equal(o.keepStack, false)
})

t.test('--quick picks a few faults and shorter recovery; --faults overrides', async (t) => {
  const q = parseOptions(['--quick'], {}, ROOT)
  t.same(q.faults, QUICK_FAULTS)
  t.ok(q.recoverySeconds < parseOptions([], {}, ROOT).recoverySeconds)
  t.same(parseOptions(['--quick', '--faults', 'kafka-kill, registry-down'], {}, ROOT).faults, [
    'kafka-kill',
    'registry-down',
  ])
})

t.test('ports and directory come from flags or DRILL_ variables', async (t) => {
  const o = parseOptions(
    ['--kafka-port', '39092', '--stack-dir', '/tmp/x', '--keep-stack'],
    { DRILL_REGISTRY_PORT: '38081' },
    ROOT,
  )
  t.equal(o.ports.kafka, 39092)
  t.equal(o.ports.registry, 38081)
  t.equal(o.stackDir, '/tmp/x')
  t.equal(o.keepStack, true)
  t.equal(parseOptions([], { DRILL_STACK_DIR: '/tmp/y' }, ROOT).stackDir, '/tmp/y')
})

t.test('the shared stack can never be the target', async (t) => {
  t.throws(() => parseOptions(['--kafka-port', '19092'], {}, ROOT), /shared stack/)
  t.throws(() => parseOptions([], { DRILL_CLICKHOUSE_HTTP_PORT: '18123' }, ROOT), /shared stack/)
  t.throws(() => parseOptions(['--stack-dir', '/repo/.stack/'], {}, ROOT), /shared stack/)
  t.throws(() => parseOptions([], { KAFKA_PORT: '29092', DRILL_INGEST_PORT: '29092' }, ROOT), /must all differ/)
  // The shared stack's own variables are not read: KAFKA_PORT=19092 in the environment changes nothing.
  t.equal(parseOptions([], { KAFKA_PORT: '19092', STACK_DIR: '/repo/.stack' }, ROOT).ports.kafka, 29092)
})

t.test('bad values are refused by name', async (t) => {
  t.throws(
    () => parseOptions(['--faults', 'kafka-kill,meteor'], {}, ROOT),
    new OptionsError('unknown fault meteor; known: ' + FAULT_NAMES.join(', ')),
  )
  t.throws(() => parseOptions(['--rate', 'fast'], {}, ROOT), /--rate: expected a number/)
  t.throws(() => parseOptions(['--rate', '0'], {}, ROOT), /--rate/)
})
