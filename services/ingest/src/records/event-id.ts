// Event ids (H12, H16): UUIDv7 for every accepted item, or UUIDv5 of the account, the
// environment and the client's message_id so a retried message gets the same id and is stored once (A5).
import { hash, randomFillSync } from 'node:crypto'

/** Fixed namespace of this project's UUIDv5 event ids (H16). Never change it: ids would change. */
export const EVENT_ID_NAMESPACE = 'ae69e083-47d3-419d-953c-92366d9c0ef6'

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function parseUuid(s: string): Buffer {
  if (!UUID_RE.test(s)) throw new TypeError(`not a UUID: ${JSON.stringify(s)}`)
  return Buffer.from(s.replace(/-/g, ''), 'hex')
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')
/** Where each of the 16 bytes' two digits go in the 36 characters. */
const DIGITS_AT = Uint8Array.from([0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34])
// Random bytes drawn in blocks rather than one crypto call per id.
const POOL_IDS = 256
const MAX_REGRESSION_MS = 1000

/**
 * The id maker of one process (H77): its monotonic UUIDv7 state, random pool and scratch buffers.
 * The service's assembly (http/app.ts) makes one and passes it down, so every route of the process
 * draws from the same sequence and a test gets its own.
 */
export class EventIds {
  // The text of an id is written as bytes into one buffer and read back as one flat string: half the
  // cost of 16 two-digit strings joined by `+` (a rope of 20 pieces, which the Avro encoder's byte count
  // then flattens), paid by every accepted event (figures in bench/HISTORY.md).
  private readonly text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1')
  private readonly namespaces = new Map<string, Buffer>()
  /** Namespace and name as hashed; 3 bytes a UTF-16 unit is the most UTF-8 takes. */
  private nameBytes = Buffer.allocUnsafe(512)
  private readonly pool = Buffer.alloc(16 * POOL_IDS)
  private poolOffset = this.pool.length
  // Monotonic state (RFC 9562 section 6.2, method 1): rand_a is a 12-bit counter seeded at
  // random below 2048 each new millisecond and incremented within it. When it runs out, the
  // timestamp moves on by 1 ms; small clock regressions keep counting from the last value.
  private lastMs = -1
  private counter = 0

  /**
   * H16: with a message_id the id is UUIDv5(EVENT_ID_NAMESPACE, JSON of [account, environment,
   * message_id]), so a retry of the same message maps to the same record; otherwise a fresh UUIDv7
   * (H12). The environment is part of the name because the projector stores the first record of an
   * event_id and drops later ones: a test-key event (H6) must never take the id of a live one with
   * the same message_id (H16). JSON keeps the parts apart whatever characters they hold.
   */
  forItem(accountId: string, environment: 'live' | 'test', messageId: string | undefined, nowMs: number): string {
    return messageId === undefined
      ? this.uuidv7(nowMs)
      : this.uuidv5(EVENT_ID_NAMESPACE, JSON.stringify([accountId, environment, messageId]))
  }

  /** RFC 9562 section 5.5: name-based UUID with SHA-1. */
  uuidv5(namespace: string, name: string): string {
    let ns = this.namespaces.get(namespace)
    if (ns === undefined) {
      ns = parseUuid(namespace)
      if (this.namespaces.size < 16) this.namespaces.set(namespace, ns)
    }
    // One-shot crypto.hash over namespace and name in one buffer: a quarter cheaper than a Hash object
    // fed twice (bench/HISTORY.md). Every event from the SDK carries a message_id, so takes this path.
    if (16 + 3 * name.length > this.nameBytes.length) this.nameBytes = Buffer.allocUnsafe(16 + 3 * name.length)
    const bytes = this.nameBytes
    ns.copy(bytes, 0)
    const n = bytes.write(name, 16, 'utf8')
    const digest = hash('sha1', bytes.subarray(0, 16 + n), 'buffer')
    digest[6] = (digest[6]! & 0x0f) | 0x50
    digest[8] = (digest[8]! & 0x3f) | 0x80
    return this.format(digest)
  }

  /** RFC 9562 section 5.7: time-ordered UUID; ids made by one instance sort in creation order. */
  uuidv7(nowMs: number = Date.now()): string {
    if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > 0xffff_ffff_ffff) {
      throw new RangeError(`uuidv7: timestamp out of range: ${nowMs}`)
    }
    const b = this.random16()
    let ms = nowMs
    if (nowMs <= this.lastMs && this.lastMs - nowMs <= MAX_REGRESSION_MS) {
      ms = this.lastMs
      this.counter++
      if (this.counter > 0xfff) {
        ms = this.lastMs + 1
        this.counter = ((b[6]! & 0x07) << 8) | b[7]!
      }
    } else {
      this.counter = ((b[6]! & 0x07) << 8) | b[7]!
    }
    this.lastMs = ms
    writeTime(b, ms, this.counter)
    return this.format(b)
  }

  private random16(): Buffer {
    if (this.poolOffset >= this.pool.length) {
      randomFillSync(this.pool)
      this.poolOffset = 0
    }
    const b = this.pool.subarray(this.poolOffset, this.poolOffset + 16)
    this.poolOffset += 16
    return b
  }

  private format(b: Uint8Array): string {
    const text = this.text
    for (let i = 0; i < 16; i++) {
      const v = b[i]!
      const at = DIGITS_AT[i]!
      text[at] = HEX_DIGITS[v >> 4]!
      text[at + 1] = HEX_DIGITS[v & 15]!
    }
    return text.toString('latin1', 0, 36)
  }
}

/** The 48-bit big-endian ms timestamp, version and counter (rand_a) of a UUIDv7 into `b`. */
function writeTime(b: Buffer, ms: number, counter: number): void {
  const hi = Math.floor(ms / 0x1_0000_0000)
  const lo = ms >>> 0
  b[0] = (hi >>> 8) & 0xff
  b[1] = hi & 0xff
  b[2] = (lo >>> 24) & 0xff
  b[3] = (lo >>> 16) & 0xff
  b[4] = (lo >>> 8) & 0xff
  b[5] = lo & 0xff
  b[6] = 0x70 | (counter >>> 8)
  b[7] = counter & 0xff
  b[8] = (b[8]! & 0x3f) | 0x80
}

/** Milliseconds encoded in a UUIDv7. */
export function uuidv7Time(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
}
