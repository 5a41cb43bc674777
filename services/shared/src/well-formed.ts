// Whether a string is well-formed UTF-16 (no unpaired surrogate), the one check ingest's
// validation and the projector's row building share. JSON allows "\ud800" escapes, but such a
// string has no UTF-8 form: Avro would write U+FFFD in its place (two message_ids could become
// one) and ClickHouse refuses the escape in a trait key, so ingest refuses them (H9) and the
// projector dead-letters any older record that holds one.

// String.prototype.isWellFormed is in Node 20 (V8 11.3), native and several times faster than a
// regular expression, but not in the ES2022 library types.
type WellFormedString = string & { isWellFormed(): boolean }

/** True when `s` holds no unpaired UTF-16 surrogate. */
export const isWellFormed = (s: string): boolean => (s as WellFormedString).isWellFormed()
