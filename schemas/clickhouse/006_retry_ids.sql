-- The ids the H16 retry check looks up (issue 10). A record with a message_id is written only if no
-- row of its event_id is stored within RETRY_WINDOW_MS of its timestamp (projector clickhouse/writer.ts).
-- Looking that up in events or identifies themselves read every row of the batch's accounts in the
-- window: their sort keys start with account_id, environment, event/user_id and timestamp, so an
-- event_id condition prunes nothing. Measured on 18.16 with 30,000,000 rows of one account in the
-- window (200 events/s for 42 hours): one lookup of 10,000 ids read all 30,000,000 rows, 1.9 s. The
-- projector looks up every batch, so its throughput fell as the window filled and kept falling with
-- the account's traffic. This table is sorted by event_id within an account, with small granules, so
-- a lookup reads about (ids x granule) rows whatever the table holds: 2,400,000 rows, 0.55 s, for the
-- same 10,000 ids over the same 30,000,000 merged rows (BENCHMARKS.md, "The H16 lookup at scale").
--
-- Filled by materialized views from the rows as they are inserted (only rows with a message_id:
-- nothing else is ever looked up). If a view's insert fails after the source table took the block,
-- the INSERT fails and the projector retries it: the retry finds nothing here and writes the rows
-- again, byte for byte, which the source table collapses and this table then holds. The backfill at
-- the end copies the ids already stored when this migration runs; run twice (a file that failed
-- half-way, or two projectors starting together), it only adds duplicates, which DISTINCT in the
-- lookup and the merges remove.
CREATE TABLE IF NOT EXISTS {db}.retry_ids
(
    source Enum8('events' = 1, 'identifies' = 2),
    account_id String,
    event_id String,
    timestamp DateTime('UTC')
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(timestamp)
ORDER BY (source, account_id, event_id)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.retry_ids_from_events_mv TO {db}.retry_ids AS
SELECT
    CAST('events' AS Enum8('events' = 1, 'identifies' = 2)) AS source,
    account_id,
    event_id,
    timestamp
FROM {db}.events
WHERE message_id != '';

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.retry_ids_from_identifies_mv TO {db}.retry_ids AS
SELECT
    CAST('identifies' AS Enum8('events' = 1, 'identifies' = 2)) AS source,
    account_id,
    event_id,
    timestamp
FROM {db}.identifies
WHERE message_id != '';

INSERT INTO {db}.retry_ids
SELECT CAST('events' AS Enum8('events' = 1, 'identifies' = 2)), account_id, event_id, timestamp
FROM {db}.events
WHERE message_id != '';

INSERT INTO {db}.retry_ids
SELECT CAST('identifies' AS Enum8('events' = 1, 'identifies' = 2)), account_id, event_id, timestamp
FROM {db}.identifies
WHERE message_id != '';
