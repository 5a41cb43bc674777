-- The hours of event_counts_hourly not counted yet (docs/design.md U25): the projector marks an
-- (account, hour) dirty after writing events into it and the recount marks it counted once the hour is
-- closed and recounted, each row versioned by when it was written. An hour whose latest row is dirty is
-- read from `events` by Trends and Definitions; every other hour from event_counts_hourly. Read with
-- GROUP BY and the latest row (max(marked_ms * 2 + dirty): of two rows of one millisecond, dirty wins).
CREATE TABLE IF NOT EXISTS {db}.event_counts_dirty
(
    account_id String,
    hour DateTime('UTC'),
    marked_ms UInt64,
    dirty UInt8
)
ENGINE = ReplacingMergeTree(marked_ms)
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, hour);

-- The hours written while HOURLY_COUNTS was off (H76: the projector did not count them) are counted now,
-- as migration 012 counted the hours before it; a count only grows, so hours counted already stay.
INSERT INTO {db}.event_counts_hourly
SELECT account_id, environment, event, toDateTime(intDiv(toUInt32(timestamp), 3600) * 3600, 'UTC') AS h,
    count(), min(timestamp_ms), max(timestamp_ms)
FROM {db}.events FINAL
GROUP BY account_id, environment, event, h;
