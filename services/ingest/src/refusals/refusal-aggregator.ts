// Refused requests of authenticated accounts, counted per minute in memory and drained as a few records
// (H65, H66): a flood of bad requests costs one count per account, environment, code, endpoint and minute,
// plus at most a few samples per account per drain, never one record per request. Every bound is here, so
// a public key can grow nothing but its own account's counters, and those only up to the caps.
import type { RefusalCountRecord, RefusalSampleRecord } from '../../../../schemas/records.js'
import { sampleBody } from './sample-body.js'

export interface Refusal {
  accountId: string
  environment: string
  code: string
  endpoint: string
  message: string
  /** The request's body text when it was read; undefined when the refusal came first. */
  body?: string
}

/** A record's count (schemas/avro/refusals.avsc) with the account it belongs to. */
export interface RefusalCount extends RefusalCountRecord {
  accountId: string
}

/** A record's sample, its body key-free and truncated (sample-body.ts), with its account. */
export interface RefusalSample extends RefusalSampleRecord {
  accountId: string
}

export interface RefusalBatch {
  counts: RefusalCount[]
  samples: RefusalSample[]
  /** Refusals not counted because the counter table was full. */
  droppedCounts: number
  /** Samples not kept because of a per-account or instance cap. */
  droppedSamples: number
}

export interface RefusalLimits {
  /** Distinct (account, environment, code, endpoint, minute) counters held between drains. */
  maxCounters: number
  /** Samples one account may add between drains. */
  samplesPerAccount: number
  /** Samples all accounts may add between drains. */
  maxSamples: number
}

export const DEFAULT_REFUSAL_LIMITS: RefusalLimits = { maxCounters: 10_000, samplesPerAccount: 5, maxSamples: 500 }

const MINUTE = 60_000

export class RefusalAggregator {
  private counts = new Map<string, RefusalCount>()
  private samples: RefusalSample[] = []
  private samplesOf = new Map<string, number>()
  private droppedCounts = 0
  private droppedSamples = 0

  constructor(
    private readonly now: () => number,
    private readonly limits: RefusalLimits = DEFAULT_REFUSAL_LIMITS,
  ) {}

  /** Counts one refusal and keeps its sample if the caps allow. Never throws for a well-typed refusal. */
  record(r: Refusal): void {
    const at = this.now()
    const minute = at - (at % MINUTE)
    const k = `${r.accountId}\u0000${r.environment}\u0000${r.code}\u0000${r.endpoint}\u0000${minute}`
    const c = this.counts.get(k)
    if (c !== undefined) c.count++
    else if (this.counts.size < this.limits.maxCounters)
      this.counts.set(k, {
        accountId: r.accountId,
        environment: r.environment,
        code: r.code,
        endpoint: r.endpoint,
        minute,
        count: 1,
      })
    else this.droppedCounts++
    this.sample(r, at)
  }

  private sample(r: Refusal, at: number): void {
    const taken = this.samplesOf.get(r.accountId) ?? 0
    if (taken >= this.limits.samplesPerAccount || this.samples.length >= this.limits.maxSamples) {
      this.droppedSamples++
      return
    }
    this.samplesOf.set(r.accountId, taken + 1)
    const { accountId, environment, code, endpoint, message } = r
    this.samples.push({ accountId, environment, code, endpoint, at, message, body: sampleBody(r.body) })
  }

  /** Everything held since the last drain; the aggregator starts empty again. */
  drain(): RefusalBatch {
    const batch: RefusalBatch = {
      counts: [...this.counts.values()],
      samples: this.samples,
      droppedCounts: this.droppedCounts,
      droppedSamples: this.droppedSamples,
    }
    this.counts = new Map()
    this.samples = []
    this.samplesOf = new Map()
    this.droppedCounts = 0
    this.droppedSamples = 0
    return batch
  }

  /** Entries held now (counters and samples): the bound the tests check. */
  size(): number {
    return this.counts.size + this.samples.length + this.samplesOf.size
  }
}
