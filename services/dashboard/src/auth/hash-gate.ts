// A bound on password hashing across all clients. The per-address throttles stop one client; many
// addresses at once could still queue scrypt calls without end on libuv's small thread pool (which
// DNS lookups and file reads share), delaying every other sign-in. Past `running + waiting`, a
// request is refused at once with 503 and Retry-After instead of waiting in line.
import { AppError } from '../../../shared/src/errors.js'
export class HashGateBusy extends AppError {
  readonly code = 'HASH_GATE_BUSY'
  constructor() {
    super('Too many sign-ins and sign-ups in progress', { status: 503, retriable: true })
  }
}

export class HashGate {
  private running = 0
  private readonly queue: Array<() => void> = []

  constructor(private readonly opts: { running: number; waiting: number }) {}

  /** Runs `fn` when a slot is free; throws HashGateBusy when the line is full. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.opts.running) {
      if (this.queue.length >= this.opts.waiting) throw new HashGateBusy()
      await new Promise<void>((resolve) => this.queue.push(resolve))
    } else this.running++
    try {
      return await fn()
    } finally {
      // Hand the slot straight to the next in line (running stays the same), or free it.
      const next = this.queue.shift()
      if (next) next()
      else this.running--
    }
  }
}
