// The counts tables (U19, U26, U29, U33): an account's counts per time bucket. A property value can name
// a person, and person_counts_daily holds user ids (its rows are a person's, deleted by id too, A12). One
// list for what removes their rows: an erasure's purge (services/projector/src/privacy/purge-counts.ts) and
// the account retention (H82); a counts table added later is one line here.
import { EVENT_COUNTS_TABLE } from './event-counts.js'
import { PROPERTY_COUNTS_TABLE } from './property-counts.js'
import { PROPERTY_DAYS_TABLE } from './property-days.js'
import { PERSON_DAYS_TABLE } from './person-days.js'

/** A counts table: an account's rows per time bucket (`column`, a DateTime of the bucket's start). */
export interface CountsTable {
  table: string
  column: string
  /** The bucket's length. */
  seconds: number
  /** The table its recount reads: the events, or another counts table (recount-ranges.ts). */
  reads: string
}

/**
 * Both hourly tables go together, though event_counts_hourly names no person: a breakdown reads an hour's
 * events without the key as its count there less the key's rows (U26).
 */
export const COUNTS_TABLES: readonly CountsTable[] = [
  { table: PROPERTY_COUNTS_TABLE, column: 'hour', seconds: 3600, reads: 'events' },
  { table: EVENT_COUNTS_TABLE, column: 'hour', seconds: 3600, reads: 'events' },
  { table: PROPERTY_DAYS_TABLE, column: 'day', seconds: 86_400, reads: PROPERTY_COUNTS_TABLE },
  { table: PERSON_DAYS_TABLE, column: 'day', seconds: 86_400, reads: 'events' },
]
