-- Monthly usage per (account, month, environment). month is the first day of the UTC
-- calendar month in which the event was received (H5). events_state holds the set of
-- event_ids, so a replayed event is counted once. emails_state stays empty until
-- emails are sent (U2). Query usage_monthly_view (it merges the states).
CREATE TABLE IF NOT EXISTS {db}.usage_monthly
(
    account_id String,
    month Date,
    environment Enum8('live' = 1, 'test' = 2),
    events_state AggregateFunction(uniqExact, String),
    emails_state AggregateFunction(uniqExact, String)
)
ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(month)
ORDER BY (account_id, month, environment);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_monthly_mv TO {db}.usage_monthly AS
SELECT
    account_id,
    toStartOfMonth(received_at) AS month,
    environment,
    uniqExactState(event_id) AS events_state,
    arrayReduce('uniqExactState', emptyArrayString()) AS emails_state
FROM {db}.events
GROUP BY account_id, month, environment;

CREATE VIEW IF NOT EXISTS {db}.usage_monthly_view AS
SELECT
    account_id,
    month,
    environment,
    uniqExactMerge(events_state) AS events,
    uniqExactMerge(emails_state) AS emails
FROM {db}.usage_monthly
GROUP BY account_id, month, environment;
