// H24: request-body bytes held by requests whose body is being read and parsed, per account and per
// instance. A request takes bytes as they arrive (after decompression) and gives them all back when its
// body is read; past the account's budget it is refused with 429, past the instance's with 503, both
// with Retry-After. So a key can stall or inflate bodies only up to its own account's budget, and every
// account together only up to the instance's: memory stays bounded whatever the clients send.
import { errors } from '../errors.js'

export interface BodyBytesBudget {
  /** Bytes all requests of one account may hold. At least the batch body limit (config.ts checks it). */
  perAccount: number
  /** Bytes all requests of this instance may hold. */
  perInstance: number
}

export class BodyBytesInFlight {
  private readonly accounts = new Map<string, number>()
  private total = 0

  constructor(readonly budget: BodyBytesBudget) {}

  /** Holds `n` more bytes for `account`; throws the 429 or 503 (holding nothing) when a budget would pass. */
  take(account: string, n: number): void {
    const held = this.accounts.get(account) ?? 0
    if (held + n > this.budget.perAccount) throw errors.bodyBytesInFlight(this.budget.perAccount)
    if (this.total + n > this.budget.perInstance) throw errors.bodyBytesInstanceFull()
    this.accounts.set(account, held + n)
    this.total += n
  }

  /** Gives back `n` bytes `account` took. */
  give(account: string, n: number): void {
    if (n <= 0) return
    const left = (this.accounts.get(account) ?? 0) - n
    if (left > 0) this.accounts.set(account, left)
    else this.accounts.delete(account)
    this.total -= n
  }

  /** Bytes held now, by all requests or by one account's. */
  held(account?: string): number {
    return account === undefined ? this.total : (this.accounts.get(account) ?? 0)
  }
}
