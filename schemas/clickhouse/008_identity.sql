-- Anonymous visitors and identity (H50-H52, docs/api.md Segment-compatible API).
--
-- Every event and identify may carry the anonymous id it was sent with (H52; '' when none: our own
-- contract's records and rows written before this migration). An event sent with only an
-- anonymousId is stored with user_id = its anonymous id, so every row has a user_id to key,
-- partition and count by. 18.16 has no ADD COLUMN IF NOT EXISTS: run again, the migration runner
-- takes "column already exists" as done.
ALTER TABLE {db}.events ADD COLUMN anonymous_id String;

ALTER TABLE {db}.identifies ADD COLUMN anonymous_id String;

-- One row per link `anonymous_id -> user_id` (H50): an identify or an event that carries both ids,
-- or an alias (stored as an identify whose anonymous_id is the alias's previousId). Links are
-- Kafka records like everything else (A1): a replay rebuilds this table from the topics. The
-- version is the link's event time, so the latest link of an anonymous id wins (identity_map).
CREATE TABLE IF NOT EXISTS {db}.identity_links
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    anonymous_id String,
    user_id String,
    linked_at DateTime('UTC'),
    linked_at_ms Int64,
    source_event_id String
)
ENGINE = ReplacingMergeTree(linked_at_ms)
PARTITION BY toYYYYMM(linked_at)
ORDER BY (account_id, environment, anonymous_id, user_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.identity_links_from_identifies_mv TO {db}.identity_links AS
SELECT account_id, environment, anonymous_id, user_id, timestamp AS linked_at, timestamp_ms AS linked_at_ms, event_id AS source_event_id
FROM {db}.identifies
WHERE anonymous_id != '' AND anonymous_id != user_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.identity_links_from_events_mv TO {db}.identity_links AS
SELECT account_id, environment, anonymous_id, user_id, timestamp AS linked_at, timestamp_ms AS linked_at_ms, event_id AS source_event_id
FROM {db}.events
WHERE anonymous_id != '' AND anonymous_id != user_id;

-- Any id (an anonymous id, or a known id merged by an alias) to its current person: the user_id of
-- its latest link (H50). An id with no link is its own person. Resolved one step: see H50.
CREATE VIEW IF NOT EXISTS {db}.identity_map AS
SELECT account_id, environment, anonymous_id AS id, argMax(user_id, linked_at_ms) AS person_id
FROM {db}.identity_links
GROUP BY account_id, environment, anonymous_id;

-- Events with the person they belong to (H50): count a person once across the anonymous-to-known
-- switch with uniqExact(person_id). Deduplicated as events_dedup is.
CREATE VIEW IF NOT EXISTS {db}.events_by_person AS
SELECT
    event_id, account_id, environment, event, user_id, anonymous_id, timestamp, timestamp_ms, properties, context, message_id,
    if(mapped_person_id = '', user_id, mapped_person_id) AS person_id
FROM {db}.events FINAL
ANY LEFT JOIN
(
    SELECT account_id, environment, id AS user_id, person_id AS mapped_person_id
    FROM {db}.identity_map
) AS mapped USING (account_id, environment, user_id);

-- Group calls (H51): one row per call, stored from the events named `$group`; groups_view gives
-- each group's latest traits.
CREATE TABLE IF NOT EXISTS {db}.groups
(
    account_id String,
    environment Enum8('live' = 1, 'test' = 2),
    group_id String,
    user_id String,
    traits String,
    timestamp DateTime('UTC'),
    timestamp_ms Int64,
    source_event_id String
)
ENGINE = ReplacingMergeTree(timestamp_ms)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, environment, group_id, user_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.groups_from_events_mv TO {db}.groups AS
SELECT
    account_id, environment, visitParamExtractString(properties, 'group_id') AS group_id, user_id,
    visitParamExtractRaw(properties, 'traits') AS traits, timestamp, timestamp_ms, event_id AS source_event_id
FROM {db}.events
WHERE event = '$group';

CREATE VIEW IF NOT EXISTS {db}.groups_view AS
SELECT account_id, environment, group_id, argMax(traits, timestamp_ms) AS traits, uniqExact(user_id) AS members, max(timestamp_ms) AS last_seen_ms
FROM {db}.groups
GROUP BY account_id, environment, group_id;
