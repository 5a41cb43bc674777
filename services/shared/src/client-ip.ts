// H14: the client's address is the socket's peer, unless that peer is a configured trusted proxy;
// then X-Forwarded-For is walked from the right, skipping trusted proxies, and the first untrusted
// hop is the client. A spoofed leftmost entry is never believed.
export function clientIp(peer: string | undefined, xff: string, trusted: ReadonlySet<string>): string {
  const p = normalize(peer ?? '')
  if (!xff || !trusted.has(p)) return p
  const hops = xff
    .split(',')
    .map((s) => normalize(s.trim()))
    .filter(Boolean)
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i])) return hops[i]
  }
  return hops[0] ?? p
}

function normalize(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip
}
