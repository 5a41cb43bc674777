// Default topic names (A3); each is configurable through the environment.
export const DEFAULT_TOPICS = {
  events: 'tracking.events.v1',
  identifies: 'tracking.identifies.v1',
  accounts: 'tracking.accounts.v1',
  dlq: 'tracking.dlq.v1',
} as const
export type Topics = { [K in keyof typeof DEFAULT_TOPICS]: string }
