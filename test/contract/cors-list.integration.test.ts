// CORS_ORIGINS as a list (docs/security.md): Access-Control-Allow-Origin carries one origin, so the
// browser's own Origin is echoed when it is allowed (with Vary: Origin) and nothing is sent for
// another origin. Sending the list verbatim, as before, made browsers refuse every answer.
import t from 'tap'
import { startServices } from '../support/harness.js'
import { http } from '../support/contract.js'

t.test('a CORS_ORIGINS list echoes the allowed origin only', async (t) => {
  const s = await startServices(t, {
    projector: false,
    env: { CORS_ORIGINS: 'https://shop.example,https://admin.example' },
  })
  const preflight = (origin: string) =>
    http(s.ingestUrl, '/v1/events', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })

  const allowed = await preflight('https://admin.example')
  t.equal(
    allowed.headers['access-control-allow-origin'],
    'https://admin.example',
    'the allowed origin is echoed, not the list',
  )
  t.match(allowed.headers.vary, /Origin/i)
  const other = await preflight('https://evil.example')
  t.equal(other.headers['access-control-allow-origin'], undefined, 'another origin gets no Allow-Origin')
  const err = await http(s.ingestUrl, '/v1/event', {
    headers: { origin: 'https://shop.example', 'content-type': 'application/json' },
    body: '{}',
  })
  t.equal(err.status, 401)
  t.equal(
    err.headers['access-control-allow-origin'],
    'https://shop.example',
    'an error answer is readable by the allowed page',
  )
})
