-- property_counts_hourly's rows summed per UTC day (docs/design.md U29): what a Trends breakdown by day or
-- week reads for the whole days of its period that hold no dirty hour, where a key with a value per event
-- (a path, an id) has about one hourly row per event. Summed again from the hourly rows FINAL whenever the
-- recount counts one of the day's hours (services/shared/src/rollup/property-days.ts), versioned by the
-- count as the hourly table (of two sums the larger stays). Read with FINAL.
CREATE TABLE IF NOT EXISTS {db}.property_counts_daily
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    event String,
    day DateTime('UTC'),
    key String,
    value String,
    events UInt64
)
ENGINE = ReplacingMergeTree(events)
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, key, day, environment, event, value);

-- The days counted before this table existed: property-days.ts's propertyDaysSelect over every hourly row
-- (property-days.test.ts checks that they are the same text), not the events again (U29: the hourly rows
-- are what the recount sums too, and far cheaper to read than the events' properties).
INSERT INTO {db}.property_counts_daily
SELECT account_id, environment, event, toDateTime(intDiv(toUInt32(hour), 86400) * 86400, 'UTC') AS d, key, value, sum(events) AS events
FROM {db}.property_counts_hourly FINAL
WHERE 1
GROUP BY account_id, environment, event, d, key, value;
