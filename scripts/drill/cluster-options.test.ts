import t from 'tap'
import { parseClusterOptions, CLUSTER_PARTS } from './cluster-options.js'

const ROOT = '/repo'

t.test('defaults: every part, its own directory and port block, broker 2 and instance 1', async (t) => {
  const o = parseClusterOptions(['--profile', 'cluster'], {}, ROOT)
  t.same(o.parts, [...CLUSTER_PARTS])
  t.equal(o.clusterDir, '/repo/.stack-drill-cluster')
  t.equal(o.portBase, 26000)
  t.equal(o.broker, 2)
  t.equal(o.ingest, 1)
  t.equal(o.rateLimitRequests, 250)
  t.equal(o.downSeconds, 30)
})

t.test('flags and DRILL_CLUSTER_* variables move it', async (t) => {
  const o = parseClusterOptions(
    ['--profile', 'cluster', '--parts', 'broker-kill', '--broker', '3', '--down', '5'],
    { DRILL_CLUSTER_PORT_BASE: '27000', DRILL_CLUSTER_DIR: '/tmp/c' },
    ROOT,
  )
  t.same(o.parts, ['broker-kill'])
  t.equal(o.broker, 3)
  t.equal(o.downSeconds, 5)
  t.equal(o.portBase, 27000)
  t.equal(o.clusterDir, '/tmp/c')
})

t.test(
  "the user's cluster profile (ports 25000-25900, .stack/cluster) is refused: the drill kills what it runs",
  async (t) => {
    t.throws(
      () => parseClusterOptions(['--profile', 'cluster', '--port-base', '25000'], {}, ROOT),
      /overlaps the cluster profile|must not be the cluster profile/,
    )
    t.throws(
      () => parseClusterOptions(['--profile', 'cluster', '--port-base', '25500'], {}, ROOT),
      /overlaps the cluster profile|must not be the cluster profile/,
    )
    t.throws(
      () => parseClusterOptions(['--profile', 'cluster', '--cluster-dir', '/repo/.stack/cluster/'], {}, ROOT),
      /overlaps the cluster profile|must not be the cluster profile/,
    )
  },
)

t.test('bad values name the option', async (t) => {
  t.throws(
    () => parseClusterOptions(['--profile', 'cluster', '--parts', 'sideways'], {}, ROOT),
    /unknown part sideways/,
  )
  t.throws(() => parseClusterOptions(['--profile', 'cluster', '--broker', '4'], {}, ROOT), /--broker/)
  t.throws(() => parseClusterOptions(['--profile', 'single'], {}, ROOT), /only cluster/)
})
