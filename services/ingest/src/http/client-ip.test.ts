import t from 'tap'
import { clientIp } from './client-ip.js'

const trusted = new Set(['127.0.0.1', '10.0.0.1'])
t.equal(clientIp('203.0.113.9', '1.2.3.4', trusted), '203.0.113.9', 'untrusted peer: X-Forwarded-For ignored')
t.equal(clientIp('127.0.0.1', '198.51.100.7', trusted), '198.51.100.7', 'trusted proxy: forwarded client used')
t.equal(
  clientIp('::ffff:127.0.0.1', '6.6.6.6, 198.51.100.7, 10.0.0.1', trusted),
  '198.51.100.7',
  'rightmost untrusted hop wins over a spoofed left entry',
)
t.equal(clientIp('127.0.0.1', '', trusted), '127.0.0.1', 'no header: the peer')
