import t from 'tap'
import { keptIp, truncateIp } from './ip-handling.js'

t.test(
  'full keeps the address, none keeps nothing, an account without the setting keeps it (default full)',
  async (t) => {
    t.equal(keptIp('203.0.113.77', 'full'), '203.0.113.77')
    t.equal(keptIp('203.0.113.77', undefined), '203.0.113.77')
    t.equal(keptIp('203.0.113.77', 'none'), null)
    t.equal(keptIp(null, 'truncated'), null)
  },
)

t.test('truncated zeroes the last octet of IPv4 and the last 80 bits of IPv6', async (t) => {
  t.equal(keptIp('203.0.113.77', 'truncated'), '203.0.113.0')
  t.equal(truncateIp('2001:db8:85a3:8d3:1319:8a2e:370:7348'), '2001:db8:85a3::')
  t.equal(truncateIp('2001:db8::1'), '2001:db8:0::')
  t.equal(truncateIp('::1'), '0:0:0::')
  t.equal(truncateIp('fe80::1%eth0'), 'fe80:0:0::', 'the zone is dropped')
  t.equal(truncateIp('::ffff:198.51.100.9'), '::ffff:198.51.100.0', 'an IPv4 client in IPv6 form stays an IPv4 /24')
  t.equal(truncateIp('64:ff9b::198.51.100.9'), '64:ff9b:0::', 'a dotted tail inside IPv6 is read as two groups')
  t.equal(truncateIp('not an ip'), null, 'what is not understood is not kept')
})
