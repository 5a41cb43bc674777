// H56: what ingest keeps of the client IP (H14) on an account's records, applied before the record
// is built, so nothing more reaches Kafka (and every copy and replay of it): the address as
// received, truncated (IPv4: last octet zeroed, a /24; IPv6: last 80 bits zeroed, a /48, the usual
// anonymisation of analytics tools), or none.
import { isIPv4, isIPv6 } from 'node:net'
import type { IpHandling } from '../../../../schemas/records.js'

export function keptIp(ip: string | null, handling: IpHandling | undefined): string | null {
  if (ip === null || handling === undefined || handling === 'full') return ip
  if (handling === 'none') return null
  return truncateIp(ip)
}

/** The address with its host part zeroed; null for anything that is not an IP address (nothing is
 * kept that was not understood). */
export function truncateIp(ip: string): string | null {
  if (isIPv4(ip)) return ip.slice(0, ip.lastIndexOf('.')) + '.0'
  const bare = ip.split('%')[0]!
  if (!isIPv6(bare)) return null
  // An IPv4 address written in IPv6 form (::ffff:a.b.c.d) is an IPv4 client.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
  if (mapped) return `::ffff:${truncateIp(mapped[1]!)}`
  return `${ipv6Groups(bare).slice(0, 3).join(':')}::`
}

/** The eight 16-bit groups of an IPv6 address (hex, without leading zeros). */
function ipv6Groups(ip: string): string[] {
  const [head, tail] = ip.includes('::') ? (ip.split('::') as [string, string]) : [ip, undefined]
  const part = (s: string | undefined) => (s ? s.split(':') : [])
  const h = part(head)
  const t = part(tail)
  // A trailing dotted quad is two groups.
  const last = t.length ? t : h
  const quad = last.length && last[last.length - 1]!.includes('.') ? last.pop()!.split('.').map(Number) : undefined
  if (quad) last.push(((quad[0]! << 8) | quad[1]!).toString(16), ((quad[2]! << 8) | quad[3]!).toString(16))
  const zeros = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0')
  return [...h, ...zeros, ...t].map((g) => parseInt(g, 16).toString(16))
}
