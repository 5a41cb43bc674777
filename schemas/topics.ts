// The four topics (A3) by role. Their names are configuration (TOPIC_*; defaults in
// services/shared/src/env.ts).
export interface Topics {
  events: string
  identifies: string
  accounts: string
  dlq: string
}
