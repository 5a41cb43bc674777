-- Raw identify records, one row per event_id (A5). Same time columns as events.
CREATE TABLE IF NOT EXISTS {db}.identifies
(
    event_id String,
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    key_id String,
    user_id String,
    email String,
    traits String,
    timestamp DateTime('UTC'),
    timestamp_ms Int64,
    original_timestamp_ms Int64,
    received_at DateTime('UTC'),
    received_at_ms Int64,
    sent_at_ms Int64,
    timestamp_flagged UInt8,
    context String,
    ip String,
    user_agent String,
    message_id String
)
ENGINE = ReplacingMergeTree(received_at_ms)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, environment, user_id, timestamp, event_id);

CREATE VIEW IF NOT EXISTS {db}.identifies_dedup AS
SELECT * FROM {db}.identifies FINAL;
