// The four topics (A3) by role. Their names are configuration (TOPIC_*; defaults in
// services/shared/src/env.ts).
export interface Topics {
  events: string
  identifies: string
  accounts: string
  dlq: string
  /** Compacted: erasure requests and their receipts (A12). Every service's config names it; optional
   * for tools and tests that touch only the event topics. */
  erasures?: string
  /** Refused requests per account, best effort, 7 days (H66). Optional like erasures. */
  refusals?: string
  /** Compacted: wrapped data keys of crypto-shredding (A15). Optional like erasures. */
  keys?: string
}
