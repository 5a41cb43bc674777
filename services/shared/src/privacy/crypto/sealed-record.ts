// A25: the record a sealed one is, built as one object literal per kind: the clear fields copied, the
// personal fields (personal-fields.ts's PERSONAL_FIELDS) blank, `user_id` the pseudonym, `enc` the sealed
// body. A copy with the blanks laid over it (`Object.assign`, A20) cost about ten times a literal; a
// literal names the fields, so sealed-record.test.ts holds each builder to the Avro schema's fields and to
// PERSONAL_FIELDS (a field added to either fails it until it is added here).
type Rec = Record<string, unknown>

export function sealedEvent(r: Rec, pseudonym: string, enc: unknown): Rec {
  return {
    event_id: r.event_id,
    account_id: r.account_id,
    environment: r.environment,
    key_id: r.key_id,
    event: r.event,
    user_id: pseudonym,
    user_email: null,
    user_traits: null,
    timestamp: r.timestamp,
    original_timestamp: r.original_timestamp,
    received_at: r.received_at,
    sent_at: r.sent_at,
    timestamp_flagged: r.timestamp_flagged,
    properties: '{}',
    context: '{}',
    ip: null,
    user_agent: null,
    message_id: null,
    anonymous_id: null,
    enc,
  }
}

export function sealedIdentify(r: Rec, pseudonym: string, enc: unknown): Rec {
  return {
    event_id: r.event_id,
    account_id: r.account_id,
    environment: r.environment,
    key_id: r.key_id,
    user_id: pseudonym,
    email: null,
    traits: '{}',
    timestamp: r.timestamp,
    original_timestamp: r.original_timestamp,
    received_at: r.received_at,
    sent_at: r.sent_at,
    timestamp_flagged: r.timestamp_flagged,
    context: '{}',
    ip: null,
    user_agent: null,
    message_id: null,
    anonymous_id: null,
    enc,
  }
}
