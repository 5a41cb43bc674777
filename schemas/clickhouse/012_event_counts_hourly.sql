-- Events counted per (account, environment, event, hour) (docs/design.md U19): what Trends without a
-- breakdown and the Definitions counts read instead of every event. Not a materialized view summing
-- inserts, which would count a re-projected duplicate for ever (A1, H16, U8): each row is RECOMPUTED from
-- `events FINAL` for the hours a write touched (services/shared/src/rollup/event-counts.ts), and the
-- version is the count itself, so of two rebuilds of one hour the one that saw more events stays (events
-- of an hour only grow). Read with FINAL.
CREATE TABLE IF NOT EXISTS {db}.event_counts_hourly
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    event String,
    hour DateTime('UTC'),
    events UInt64,
    first_ms Int64,
    last_ms Int64
)
ENGINE = ReplacingMergeTree(events)
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, environment, event, hour);

-- The hours stored before this table existed (a database built by replay has none to copy, A1); the
-- columns in the table's order.
INSERT INTO {db}.event_counts_hourly
SELECT account_id, environment, event, toDateTime(intDiv(toUInt32(timestamp), 3600) * 3600, 'UTC') AS h,
    count(), min(timestamp_ms), max(timestamp_ms)
FROM {db}.events FINAL
GROUP BY account_id, environment, event, h;
