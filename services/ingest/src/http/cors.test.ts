import t from 'tap'
import { allowedOrigin, parseCorsOrigins } from './cors.js'

t.test('a list of origins echoes the matching one, never the list', async (t) => {
  const p = parseCorsOrigins('https://a.example, https://b.example/')
  t.equal(allowedOrigin(p, 'https://b.example'), 'https://b.example')
  t.equal(allowedOrigin(p, 'HTTPS://A.EXAMPLE'), 'HTTPS://A.EXAMPLE', 'origins compare case-insensitively')
  t.equal(allowedOrigin(p, 'https://evil.example'), undefined)
  t.equal(allowedOrigin(p, undefined), undefined)
})

t.test('* stays *', async (t) => {
  t.equal(allowedOrigin(parseCorsOrigins('*'), 'https://x.example'), '*')
  t.equal(allowedOrigin(parseCorsOrigins(''), undefined), '*')
})
