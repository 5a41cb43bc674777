-- Raw events, one row per event_id (A5). Times: DateTime('UTC') columns hold whole
-- seconds for partitioning, ordering and date functions; the *_ms Int64 columns hold
-- the same instants as epoch milliseconds (A6: 18.16 has no DateTime64). 0 = absent.
-- Duplicates from replays share every sort-key column, so they collapse on merge;
-- read through events_dedup (or FROM events FINAL) when counts must be exact.
CREATE TABLE IF NOT EXISTS {db}.events
(
    event_id String,
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    key_id String,
    event String,
    user_id String,
    timestamp DateTime('UTC'),
    timestamp_ms Int64,
    original_timestamp_ms Int64,
    received_at DateTime('UTC'),
    received_at_ms Int64,
    sent_at_ms Int64,
    timestamp_flagged UInt8,
    properties String,
    context String,
    ip String,
    user_agent String,
    message_id String,
    user_email String,
    user_traits String
)
ENGINE = ReplacingMergeTree(received_at_ms)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, environment, event, timestamp, event_id);

CREATE VIEW IF NOT EXISTS {db}.events_dedup AS
SELECT * FROM {db}.events FINAL;
