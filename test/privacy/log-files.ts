// Test helper: a topic's bytes as the broker keeps them on disk. Every file of its partitions' log
// directories (segments, indexes, files the cleaner left being swapped or deleted), and the records of the
// segment files parsed from Kafka's record batch format v2 (magic 2, uncompressed: our producers do not
// compress), so a test reads what anyone holding the disks could, not what the broker serves.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { unwrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'

export interface DiskFile {
  path: string
  bytes: Buffer
}

export interface DiskRecord {
  key: Buffer | null
  value: Buffer | null
}

/** Every file of every partition directory of `topic` under the broker's log dir. */
export function topicFiles(logDir: string, topic: string): DiskFile[] {
  const dirs = readdirSync(logDir).filter((d) => d.startsWith(`${topic}-`) && /^\d+$/.test(d.slice(topic.length + 1)))
  return dirs.flatMap((d) =>
    readdirSync(join(logDir, d)).flatMap((f) => {
      try {
        return [{ path: join(d, f), bytes: readFileSync(join(logDir, d, f)) }]
      } catch {
        return [] // deleted by the broker between the listing and the read
      }
    }),
  )
}

/** The forms a string may take in a file: plain, base64, hex, UTF-16 and JSON-escaped. */
export function encodingsOf(s: string): Buffer[] {
  return [
    Buffer.from(s),
    Buffer.from(Buffer.from(s).toString('base64').replace(/=+$/, '')),
    Buffer.from(Buffer.from(s).toString('hex')),
    Buffer.from(s, 'utf16le'),
    Buffer.from(JSON.stringify(s).slice(1, -1)),
  ]
}

/** The files that hold `s` in any of its forms. */
export function filesHolding(files: DiskFile[], s: string): string[] {
  const forms = encodingsOf(s)
  return files.filter((f) => forms.some((b) => f.bytes.includes(b))).map((f) => f.path)
}

/** The records of the segment files (`*.log`, and `.log.cleaned`/`.swap`/`.deleted` the cleaner leaves). */
export function segmentRecords(files: DiskFile[]): DiskRecord[] {
  return files.filter((f) => /\.log(\.|$)/.test(f.path)).flatMap((f) => batchesOf(f.bytes))
}

/** Every data key in a keys topic's files that unwraps with `master`: what anyone holding the disks and the
 *  master key could open records with. */
export function keysOnDisk(files: DiskFile[], master: Buffer): Buffer[] {
  return segmentRecords(files).flatMap((r) => {
    if (r.key === null || r.value === null) return []
    try {
      return [unwrapDataKey(master, r.key.toString('utf8'), r.value)]
    } catch {
      return [] // not a key wrapped by this master (none is expected)
    }
  })
}

const BATCH_HEADER = 61
const CONTROL = 0x20

function batchesOf(buf: Buffer): DiskRecord[] {
  const out: DiskRecord[] = []
  let at = 0
  while (at + BATCH_HEADER <= buf.length) {
    const size = 12 + buf.readInt32BE(at + 8)
    if (size < BATCH_HEADER || at + size > buf.length || buf.readInt8(at + 16) !== 2) break
    const attributes = buf.readInt16BE(at + 21)
    if ((attributes & 0x07) !== 0) throw new Error('a compressed batch: this reader takes uncompressed ones only')
    if ((attributes & CONTROL) === 0) out.push(...recordsOf(buf.subarray(at + BATCH_HEADER, at + size)))
    at += size
  }
  return out
}

function recordsOf(buf: Buffer): DiskRecord[] {
  const r = new VarReader(buf)
  const out: DiskRecord[] = []
  while (r.at < buf.length) {
    const end = r.varint() + r.at
    r.at += 1 // attributes
    r.varint() // timestamp delta
    r.varint() // offset delta
    const key = r.bytes()
    const value = r.bytes()
    out.push({ key, value })
    r.at = end // headers skipped
  }
  return out
}

class VarReader {
  at = 0
  constructor(private readonly buf: Buffer) {}

  /** A zigzag varint (Kafka's varint and varlong; our lengths and deltas fit a double). */
  varint(): number {
    let n = 0
    let mul = 1
    for (;;) {
      const b = this.buf[this.at++]!
      n += (b & 0x7f) * mul
      if ((b & 0x80) === 0) break
      mul *= 128
    }
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2
  }

  bytes(): Buffer | null {
    const n = this.varint()
    if (n < 0) return null
    const b = this.buf.subarray(this.at, this.at + n)
    this.at += n
    return b
  }
}
