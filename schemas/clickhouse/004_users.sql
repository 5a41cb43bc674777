-- One row per (account, environment, user) after merge. States are fed by materialized
-- views on events and identifies; min, max and argMax give the same answer however
-- often a record is replayed. Query users_view (it merges the states).
-- email: the latest non-empty email by event time (empty emails get version 0).
CREATE TABLE IF NOT EXISTS {db}.users
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    user_id String,
    email_state AggregateFunction(argMax, String, Int64),
    first_seen_state AggregateFunction(min, Int64),
    last_seen_state AggregateFunction(max, Int64)
)
ENGINE = AggregatingMergeTree()
ORDER BY (account_id, environment, user_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.users_from_events_mv TO {db}.users AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxState(user_email, if(user_email = '', toInt64(0), timestamp_ms)) AS email_state,
    minState(timestamp_ms) AS first_seen_state,
    maxState(timestamp_ms) AS last_seen_state
FROM {db}.events
GROUP BY account_id, environment, user_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.users_from_identifies_mv TO {db}.users AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxState(email, if(email = '', toInt64(0), timestamp_ms)) AS email_state,
    minState(timestamp_ms) AS first_seen_state,
    maxState(timestamp_ms) AS last_seen_state
FROM {db}.identifies
GROUP BY account_id, environment, user_id;

CREATE VIEW IF NOT EXISTS {db}.users_view AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxMerge(email_state) AS email,
    minMerge(first_seen_state) AS first_seen_ms,
    maxMerge(last_seen_state) AS last_seen_ms,
    toDateTime(intDiv(first_seen_ms, 1000), 'UTC') AS first_seen,
    toDateTime(intDiv(last_seen_ms, 1000), 'UTC') AS last_seen
FROM {db}.users
GROUP BY account_id, environment, user_id;
