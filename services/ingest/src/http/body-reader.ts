// H24: reads a request body as it arrives, through node:zlib for gzip, deflate and br, counting the
// bytes after decompression as they come. It refuses -- and stops reading and inflating at once -- a
// body past its limit, a compressed body that inflates more than `maxInflateRatio` times what arrived
// (past a small allowance), a body that has not arrived within `timeoutMs`, and whatever `take`
// refuses (the in-flight budgets of limits/body-bytes-in-flight.ts). So a request holds memory and
// time in proportion to what it sent, never the 9.5 MB one 9 KB gzip body used to hold until Node's
// 300 s request timeout.
import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from 'node:zlib'
import { errors } from '../errors.js'

export type ContentCoding = 'identity' | 'gzip' | 'deflate' | 'br'

/** The codings read; anything else is 415 naming it (docs/api.md Endpoints). */
export function contentCoding(header: string | undefined): ContentCoding | { unsupported: string } {
  // Codings are case-insensitive (RFC 9110 8.4.1); an empty header is no coding.
  const c = header ? header.trim().toLowerCase() : ''
  if (c === '' || c === 'identity') return 'identity'
  if (c === 'gzip' || c === 'x-gzip') return 'gzip'
  if (c === 'deflate' || c === 'br') return c
  return { unsupported: header! }
}

/**
 * Output a compressed body may produce whatever its ratio: small bodies compress far better than
 * large ones (one 32 KB event of repeated text inflates a few hundred times), and within this much
 * a request holds no more than a valid single event does anyway.
 */
export const INFLATE_ALLOWANCE_BYTES = 64 * 1024

export interface ReadBodyOptions {
  /** Bytes after decompression (H7: 413 beyond). */
  limit: number
  /** Past INFLATE_ALLOWANCE_BYTES, output at most this many times the compressed bytes inflated so far. */
  maxInflateRatio: number
  /** The whole body must have arrived within this time of the read starting (408 beyond). */
  timeoutMs: number
}

/**
 * The body, decompressed. `take(n)` is called before each `n` bytes are kept and may throw to refuse
 * the request (the bytes it accepted are the caller's to give back). Rejects with a ServiceError.
 */
export function readBody(
  req: Readable,
  coding: ContentCoding,
  o: ReadBodyOptions,
  take: (n: number) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => new BodyRead(req, coding, o, take, resolve, reject).start())
}

/** One body being read: its chunks, counts, inflater and deadline. */
class BodyRead {
  private readonly chunks: Buffer[] = []
  /** Bytes kept (after decompression). */
  private size = 0
  /** Compressed bytes received. */
  private received = 0
  private ended = false
  private done = false
  private readonly inflater: Gunzip | undefined
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly req: Readable,
    coding: ContentCoding,
    private readonly o: ReadBodyOptions,
    private readonly take: (n: number) => void,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.inflater = coding === 'identity' ? undefined : inflaterFor(coding)
  }

  start(): void {
    this.timer = setTimeout(() => this.finish(errors.requestTimeout(this.o.timeoutMs)), this.o.timeoutMs)
    const inflater = this.inflater
    if (inflater) {
      inflater.on('data', this.output)
      inflater.on('end', () => this.finish(undefined))
      inflater.on('error', (err) =>
        this.finish(errors.invalidJson(`the body could not be decompressed: ${err.message}`.slice(0, 200))),
      )
    }
    this.req.on('data', this.input)
    this.req.on('end', this.inputEnd)
    this.req.on('error', this.readError)
    this.req.on('close', this.closed)
  }

  private readonly input = (chunk: Buffer) => {
    const inflater = this.inflater
    if (!inflater) return this.output(chunk)
    this.received += chunk.length
    // More compressed bytes than the limit allows after decompression: no valid body is that.
    if (this.received > this.o.limit) return this.finish(errors.payloadTooLarge(this.o.limit))
    if (!inflater.write(chunk)) {
      this.req.pause()
      inflater.once('drain', () => this.done || this.req.resume())
    }
  }

  private readonly output = (chunk: Buffer) => {
    if (this.done) return
    this.size += chunk.length
    if (this.size > this.o.limit) return this.finish(errors.payloadTooLarge(this.o.limit))
    // The ratio to the input zlib has consumed so far, not to what arrived: one 9 KB chunk of a bomb is
    // refused after the allowance, not after inflating 100 times the whole chunk.
    if (
      this.inflater &&
      this.size > INFLATE_ALLOWANCE_BYTES &&
      this.size > this.inflater.bytesWritten * this.o.maxInflateRatio
    ) {
      return this.finish(errors.inflateRatio(this.o.limit, this.o.maxInflateRatio))
    }
    try {
      this.take(chunk.length)
    } catch (err) {
      return this.finish(err)
    }
    this.chunks.push(chunk)
  }

  private readonly inputEnd = () => {
    this.ended = true
    if (this.inflater) this.inflater.end()
    else this.finish(undefined)
  }

  private readonly readError = (err: Error) =>
    this.finish(errors.invalidJson(`the body could not be read: ${err.message}`.slice(0, 200)))

  private readonly closed = () => {
    if (!this.ended) this.readError(new Error('request aborted'))
  }

  private finish(err: unknown): void {
    if (this.done) return
    this.done = true
    clearTimeout(this.timer)
    this.req.off('data', this.input)
    this.req.off('end', this.inputEnd)
    this.req.off('error', this.readError)
    this.req.off('close', this.closed)
    this.inflater?.destroy()
    if (err === undefined) {
      this.resolve(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size))
      return
    }
    // Stop reading; the answer closes the connection (errors.ts CLOSE).
    this.req.pause()
    this.reject(err)
  }
}

function inflaterFor(coding: Exclude<ContentCoding, 'identity'>): Gunzip {
  if (coding === 'gzip') return createGunzip()
  if (coding === 'deflate') return createInflate()
  return createBrotliDecompress() as unknown as Gunzip
}
