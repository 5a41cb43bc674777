-- The weeks each id was seen in, per event and for any event (docs/design.md U23): what Retention reads
-- instead of every event of the account. One row per (account, environment, event, week, user_id), event
-- '' standing for "any event" (an event name is never empty, docs/api.md). A set: a duplicate row (a
-- re-projected event, two inserts of one week, a replay, A1) changes no answer, so the materialized view
-- may insert a week again and readers need no FINAL. The weeks are those of Trends (Monday, UTC, U13).
-- `timestamp` is the latest event of the row's week (the version): the account retention (H60) deletes
-- a row only once every event of that week is expired, and the erasure (A12) finds the table by its
-- user_id. The view groups each insert's block, so a batch adds a row per id and week, not per event.
CREATE TABLE IF NOT EXISTS {db}.person_weeks
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    event String,
    user_id String,
    week DateTime('UTC'),
    timestamp DateTime('UTC')
)
ENGINE = ReplacingMergeTree(timestamp)
PARTITION BY toYYYYMM(week)
ORDER BY (account_id, environment, event, week, user_id);

-- No subquery: 18.16 runs a materialized view's outer SELECT on the inserted block ("Unknown identifier").
-- `arrayJoin([event, '']) AS event` and `max(timestamp) AS timestamp` are read from the source columns on
-- 18.16 and current ClickHouse, and the week is taken from timestamp_ms (the same second as timestamp,
-- rows.ts) so that no other expression names `timestamp`, which would then mean the aggregate.
CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.person_weeks_from_events_mv TO {db}.person_weeks AS
SELECT account_id, environment, arrayJoin([event, '']) AS event, user_id,
    toDateTime(intDiv(intDiv(timestamp_ms, 1000) + 259200, 604800) * 604800 - 259200, 'UTC') AS week, max(timestamp) AS timestamp
FROM {db}.events
GROUP BY account_id, environment, event, user_id, week;

-- The weeks stored before this table existed (a database built by replay has none to copy, A1).
INSERT INTO {db}.person_weeks
SELECT account_id, environment, arrayJoin([event, '']) AS event, user_id,
    toDateTime(intDiv(intDiv(timestamp_ms, 1000) + 259200, 604800) * 604800 - 259200, 'UTC') AS week, max(timestamp) AS timestamp
FROM {db}.events
GROUP BY account_id, environment, event, user_id, week;
