-- Refused requests of each account (H65, H66, H57): projected from the refusals topic, where ingest
-- appends one record per account per drain. A1: a replay of the topic rebuilds both tables.
--
-- Exactness (A5): the projector is at-least-once, so a record can be inserted twice. A record is
-- identified by (account_id, instance_id, drained_at_ms); each row is keyed by it plus its own fields,
-- in a ReplacingMergeTree, so `FINAL` (or a merge) leaves one row per record and field, and sums read
-- with FINAL stay exact.
--
-- Bounded to 7 days like the topic (H65): partitioned by day, and the projector drops the partitions
-- older than that (refusals/prune.ts). Not a table TTL: TTL is not valid on ClickHouse 18.16 (A6).
CREATE TABLE IF NOT EXISTS {db}.refusals_by_minute
(
    account_id String,
    environment String,
    code String,
    endpoint String,
    minute DateTime('UTC'),
    count UInt64,
    instance_id String,
    drained_at_ms Int64
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMMDD(minute)
ORDER BY (account_id, minute, environment, code, endpoint, instance_id, drained_at_ms);

-- A few refused requests per account (H65): the body is the first 2,048 characters with keys already
-- replaced by ingest. Personal data (docs/privacy.md). `seq` is the sample's place in its record.
CREATE TABLE IF NOT EXISTS {db}.refused_samples
(
    account_id String,
    environment String,
    code String,
    endpoint String,
    at DateTime('UTC'),
    at_ms Int64,
    message String,
    body String,
    instance_id String,
    drained_at_ms Int64,
    seq UInt32
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMMDD(at)
ORDER BY (account_id, at, instance_id, drained_at_ms, seq);
