// What the ingest middleware chain keeps on a request: the client address, the per-minute result
// whose headers every response carries (H2), and the authenticated key once known.
import type Koa from 'koa'
import type { KeyLookup } from '../../../shared/src/accounts/key-table.js'
import type { RateLimitResult } from '../limits/index.js'

export interface State {
  rl?: RateLimitResult
  ip: string
  auth?: KeyLookup
}

export type Ctx = Koa.ParameterizedContext<State>
