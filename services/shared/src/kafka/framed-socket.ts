// A38: the socket the Kafka client reads through hands kafkajs each response whole. With Node's own
// socket, every read is a new 64 KiB Buffer and kafkajs concatenates a response's reads into one more
// (packages/kafkajs/src/network/connection.js, processData): a consumer's every fetched byte was
// allocated twice and copied once more, and both allocations count towards the external memory whose
// growth starts V8's collections. Here the reads go into one Buffer kept by the socket (net.connect's
// `onread`) and are copied once into a Buffer of the response's size; kafkajs, given a whole response
// a chunk, decodes it where it lies. Every Kafka response is a 4-byte big-endian size and that many
// bytes (the protocol's framing), so nothing here reads what a response says. TLS and SASL connections
// keep kafkajs's own socket (client.ts).
import net from 'node:net'

/** kafkajs's socket factory, of the arguments this one uses (client.ts passes it to kafkajs). */
export type SocketFactory = (args: { host: string; port: number; onConnect: () => void }) => net.Socket

const READ_BYTES = 64 * 1024
const SIZE_BYTES = 4
/** kafkajs's own socket's keep-alive (packages/kafkajs/src/network/socketFactory.js). */
const KEEP_ALIVE_DELAY = 60_000

/** A size no Kafka response has: the connection is out of step with the protocol and is closed. */
export class FramingError extends Error {
  override name = 'FramingError'
}

/** Cuts a byte stream into Kafka responses: each `onFrame` call gets one response, its size prefix included. */
export class ResponseFrames {
  private readonly size = Buffer.alloc(SIZE_BYTES)
  private sizeFilled = 0
  private frame: Buffer | null = null
  private filled = 0

  constructor(private readonly onFrame: (frame: Buffer) => void) {}

  /** Takes the first `n` bytes of `bytes`, a Buffer the caller reuses: they are copied. */
  push(bytes: Buffer, n: number): void {
    let i = 0
    while (i < n) {
      if (this.frame === null) {
        const take = Math.min(SIZE_BYTES - this.sizeFilled, n - i)
        bytes.copy(this.size, this.sizeFilled, i, i + take)
        this.sizeFilled += take
        i += take
        if (this.sizeFilled < SIZE_BYTES) return
        const size = this.size.readInt32BE(0)
        if (size < 0) throw new FramingError(`Kafka response of negative size ${size}`)
        // Every byte is written before the frame is handed on, so it need not be zeroed.
        this.frame = Buffer.allocUnsafe(SIZE_BYTES + size)
        this.size.copy(this.frame, 0)
        this.filled = SIZE_BYTES
        this.sizeFilled = 0
      }
      const take = Math.min(this.frame.length - this.filled, n - i)
      bytes.copy(this.frame, this.filled, i, i + take)
      this.filled += take
      i += take
      if (this.filled === this.frame.length) {
        const whole = this.frame
        this.frame = null
        this.onFrame(whole)
      }
    }
  }
}

/** kafkajs's socket factory for plain TCP: each response emitted whole as one 'data' chunk. */
export const framedSocketFactory: SocketFactory = ({ host, port, onConnect }) => {
  const frames = new ResponseFrames((frame) => socket.emit('data', frame))
  const socket = net.connect(
    {
      host,
      port,
      onread: {
        buffer: Buffer.allocUnsafeSlow(READ_BYTES),
        // true: keep reading (false would pause the socket).
        callback: (n: number, buf: Uint8Array) => {
          try {
            frames.push(buf as Buffer, n)
          } catch (err) {
            // kafkajs's own errors in its 'data' handler go up as they did from its socket.
            if (!(err instanceof FramingError)) throw err
            socket.destroy(err)
          }
          return true
        },
      },
    },
    onConnect,
  )
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY)
  return socket
}

/** The socket factory a client of these settings is given: the framed one, unless TLS or SASL is on. */
export function socketFactoryFor(kafka: { ssl?: boolean; sasl?: unknown }): SocketFactory | undefined {
  return kafka.ssl || kafka.sasl ? undefined : framedSocketFactory
}
