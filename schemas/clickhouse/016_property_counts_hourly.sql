-- Events counted per (account, environment, event, hour, property key, value) (docs/design.md U26): what a
-- Trends breakdown reads instead of the properties of every event of its period. As event_counts_hourly
-- (012, U19), not a materialized view summing inserts, which would count a re-projected duplicate for ever:
-- the rows of an hour are RECOMPUTED from `events FINAL` when the recount counts the hour (U25,
-- services/shared/src/rollup/property-counts.ts), versioned by the count (of two counts the larger stays).
-- Keys and values as property-counts.ts reads them: the first 50 pairs of an event, a value cut at 100
-- characters (docs/limits.md). Sorted by key before hour: a breakdown reads one key's rows. Read with FINAL.
CREATE TABLE IF NOT EXISTS {db}.property_counts_hourly
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    event String,
    hour DateTime('UTC'),
    key String,
    value String,
    events UInt64
)
ENGINE = ReplacingMergeTree(events)
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, key, hour, environment, event, value);

-- The hours stored before this table existed (a database built by replay has none to copy, A1): the
-- SELECT of property-counts.ts's propertyCountsSelect over every event, its columns in the table's order
-- (property-counts.test.ts checks that they are the same text).
INSERT INTO {db}.property_counts_hourly
SELECT account_id, environment, event, toDateTime(intDiv(toUInt32(timestamp), 3600) * 3600, 'UTC') AS h, substring(pair, 2, position(pair, '":') - 2) AS key,
    if(lengthUTF8(if(substring(substring(pair, position(pair, '":') + 2), 1, 1) = '"' AND length(substring(pair, position(pair, '":') + 2)) > 2, substring(substring(pair, position(pair, '":') + 2), 2, length(substring(pair, position(pair, '":') + 2)) - 2), substring(pair, position(pair, '":') + 2))) > 100, concat(substringUTF8(if(substring(substring(pair, position(pair, '":') + 2), 1, 1) = '"' AND length(substring(pair, position(pair, '":') + 2)) > 2, substring(substring(pair, position(pair, '":') + 2), 2, length(substring(pair, position(pair, '":') + 2)) - 2), substring(pair, position(pair, '":') + 2)), 1, 100), '…'), if(substring(substring(pair, position(pair, '":') + 2), 1, 1) = '"' AND length(substring(pair, position(pair, '":') + 2)) > 2, substring(substring(pair, position(pair, '":') + 2), 2, length(substring(pair, position(pair, '":') + 2)) - 2), substring(pair, position(pair, '":') + 2))) AS value, count() AS events
FROM {db}.events FINAL
ARRAY JOIN arrayFilter((p, u) -> u = 1, arraySlice(extractAll(properties, '"[^"\\\\]{1,255}":(?:"(?:[^"\\\\]|\\\\.)*"|[^",{}\\[\\]]+)'), 1, 50), arrayEnumerateUniq(arrayMap(q -> substring(q, 2, position(q, '":') - 2), arraySlice(extractAll(properties, '"[^"\\\\]{1,255}":(?:"(?:[^"\\\\]|\\\\.)*"|[^",{}\\[\\]]+)'), 1, 50)))) AS pair
WHERE 1
GROUP BY account_id, environment, event, h, key, value;
