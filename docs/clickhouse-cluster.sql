-- The schema of schemas/clickhouse/001-005 for a ClickHouse cluster named `tracking` (docs/scaling.md):
-- replicated local tables (*_local) plus Distributed tables under the old names, materialized views
-- from and to the local tables. Columns, ORDER BY and PARTITION BY are those of the single-server
-- migrations. {db} is the database, as in the migrations; {shard} and {replica} are ClickHouse macros
-- from each server's config. Checked on ClickHouse 18.16.1 with two shards and ZooKeeper 3.8: created
-- ON CLUSTER from one node, inserts through the Distributed tables with insert_distributed_sync = 1
-- spread over both shards, and a replayed batch was collapsed by FINAL and counted once by
-- usage_monthly_view and users_view. Needs CREATE DATABASE {db} ON CLUSTER tracking first. The migration
-- runner emits this from schemas/clickhouse/ itself when CLICKHOUSE_CLUSTER is set (cluster.ts, docs/design.md H44),
-- with the database name in place of {db} in the ZooKeeper paths.

CREATE TABLE IF NOT EXISTS {db}.events_local ON CLUSTER tracking
(
    event_id String,
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    key_id String,
    event String,
    user_id String,
    timestamp DateTime('UTC'),
    timestamp_ms Int64,
    original_timestamp_ms Int64,
    received_at DateTime('UTC'),
    received_at_ms Int64,
    sent_at_ms Int64,
    timestamp_flagged UInt8,
    properties String,
    context String,
    ip String,
    user_agent String,
    message_id String,
    user_email String,
    user_traits String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{db}/events_local', '{replica}', received_at_ms)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, environment, event, timestamp, event_id);

CREATE TABLE IF NOT EXISTS {db}.events ON CLUSTER tracking AS {db}.events_local
ENGINE = Distributed(tracking, {db}, events_local, cityHash64(account_id, user_id));

CREATE VIEW IF NOT EXISTS {db}.events_dedup ON CLUSTER tracking AS
SELECT * FROM {db}.events FINAL;

CREATE TABLE IF NOT EXISTS {db}.identifies_local ON CLUSTER tracking
(
    event_id String,
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    key_id String,
    user_id String,
    email String,
    traits String,
    timestamp DateTime('UTC'),
    timestamp_ms Int64,
    original_timestamp_ms Int64,
    received_at DateTime('UTC'),
    received_at_ms Int64,
    sent_at_ms Int64,
    timestamp_flagged UInt8,
    context String,
    ip String,
    user_agent String,
    message_id String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{db}/identifies_local', '{replica}', received_at_ms)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, environment, user_id, timestamp, event_id);

CREATE TABLE IF NOT EXISTS {db}.identifies ON CLUSTER tracking AS {db}.identifies_local
ENGINE = Distributed(tracking, {db}, identifies_local, cityHash64(account_id, user_id));

CREATE VIEW IF NOT EXISTS {db}.identifies_dedup ON CLUSTER tracking AS
SELECT * FROM {db}.identifies FINAL;

CREATE TABLE IF NOT EXISTS {db}.user_traits_local ON CLUSTER tracking
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    user_id String,
    trait_key String,
    value String,
    set_at DateTime('UTC'),
    set_at_ms Int64,
    source_event_id String
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{db}/user_traits_local', '{replica}', set_at_ms)
ORDER BY (account_id, environment, user_id, trait_key);

CREATE TABLE IF NOT EXISTS {db}.user_traits ON CLUSTER tracking AS {db}.user_traits_local
ENGINE = Distributed(tracking, {db}, user_traits_local, cityHash64(account_id, user_id));

CREATE VIEW IF NOT EXISTS {db}.user_traits_latest ON CLUSTER tracking AS
SELECT account_id, environment, user_id, trait_key, value, set_at, set_at_ms, source_event_id
FROM {db}.user_traits FINAL;

CREATE TABLE IF NOT EXISTS {db}.users_local ON CLUSTER tracking
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    user_id String,
    email_state AggregateFunction(argMax, String, Int64),
    first_seen_state AggregateFunction(min, Int64),
    last_seen_state AggregateFunction(max, Int64)
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{db}/users_local', '{replica}')
ORDER BY (account_id, environment, user_id);

CREATE TABLE IF NOT EXISTS {db}.users ON CLUSTER tracking AS {db}.users_local
ENGINE = Distributed(tracking, {db}, users_local);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.users_from_events_mv ON CLUSTER tracking TO {db}.users_local AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxState(user_email, if(user_email = '', toInt64(0), timestamp_ms)) AS email_state,
    minState(timestamp_ms) AS first_seen_state,
    maxState(timestamp_ms) AS last_seen_state
FROM {db}.events_local
GROUP BY account_id, environment, user_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.users_from_identifies_mv ON CLUSTER tracking TO {db}.users_local AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxState(email, if(email = '', toInt64(0), timestamp_ms)) AS email_state,
    minState(timestamp_ms) AS first_seen_state,
    maxState(timestamp_ms) AS last_seen_state
FROM {db}.identifies_local
GROUP BY account_id, environment, user_id;

CREATE VIEW IF NOT EXISTS {db}.users_view ON CLUSTER tracking AS
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

CREATE TABLE IF NOT EXISTS {db}.usage_monthly_local ON CLUSTER tracking
(
    account_id String,
    month Date,
    environment Enum8('live' = 1, 'test' = 2),
    events_state AggregateFunction(uniqExact, String),
    emails_state AggregateFunction(uniqExact, String)
)
ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{db}/usage_monthly_local', '{replica}')
PARTITION BY toYYYYMM(month)
ORDER BY (account_id, month, environment);

CREATE TABLE IF NOT EXISTS {db}.usage_monthly ON CLUSTER tracking AS {db}.usage_monthly_local
ENGINE = Distributed(tracking, {db}, usage_monthly_local);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.usage_monthly_mv ON CLUSTER tracking TO {db}.usage_monthly_local AS
SELECT
    account_id,
    toStartOfMonth(received_at) AS month,
    environment,
    uniqExactState(event_id) AS events_state,
    arrayReduce('uniqExactState', emptyArrayString()) AS emails_state
FROM {db}.events_local
GROUP BY account_id, month, environment;

CREATE VIEW IF NOT EXISTS {db}.usage_monthly_view ON CLUSTER tracking AS
SELECT
    account_id,
    month,
    environment,
    uniqExactMerge(events_state) AS events,
    uniqExactMerge(emails_state) AS emails
FROM {db}.usage_monthly
GROUP BY account_id, month, environment;
