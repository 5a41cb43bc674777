-- Events counted per (account, environment, UTC day, person) (docs/design.md U33): what a Trends breakdown
-- by a trait reads, by day or week, for the whole days of its period that hold no dirty hour, instead of
-- every event of those days. Recomputed from `events FINAL` whenever the recount counts one of the day's
-- hours (services/shared/src/rollup/person-days.ts), as the other counts tables are (U25): versioned by
-- the count, so of two recounts of one day the one that saw more events stays. `person` (cityHash64 of
-- the environment and the id) and `person_check` (sipHash64 of the id) are what a breakdown joins the
-- person's trait on, instead of the id's text (U33). The user_id column makes the table a person table: an erasure deletes its rows (A12),
-- and its days as a counts table's (U26).
CREATE TABLE IF NOT EXISTS {db}.person_counts_daily
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    day DateTime('UTC'),
    person UInt64,
    person_check UInt64,
    user_id String,
    events UInt64
)
ENGINE = ReplacingMergeTree(events)
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, day, environment, person, user_id);

-- The days stored before this table existed: person-days.ts's personDaysSelect over every event
-- (person-days.test.ts checks that they are the same text). A database built by replay has none (A1).
INSERT INTO {db}.person_counts_daily
SELECT account_id, environment, toDateTime(intDiv(toUInt32(timestamp), 86400) * 86400, 'UTC') AS d, cityHash64(toString(environment), user_id), sipHash64(user_id), user_id, count() AS events
FROM {db}.events FINAL
WHERE 1
GROUP BY account_id, environment, d, user_id;
