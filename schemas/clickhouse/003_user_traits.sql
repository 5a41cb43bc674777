-- Latest value of each trait: one row per (account, environment, user, trait key) after
-- merge. Written by the projector from identify traits and from traits on an event's
-- user (H10). The version is the event time in ms, so the latest event time wins no
-- matter the order of arrival, and a partial identify only touches the keys it names.
CREATE TABLE IF NOT EXISTS {db}.user_traits
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
ENGINE = ReplacingMergeTree(set_at_ms)
ORDER BY (account_id, environment, user_id, trait_key);

CREATE VIEW IF NOT EXISTS {db}.user_traits_latest AS
SELECT account_id, environment, user_id, trait_key, value, set_at, set_at_ms, source_event_id
FROM {db}.user_traits FINAL;
