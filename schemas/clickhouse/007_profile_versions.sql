-- The profile email's version (H39): the record's event time capped at the server's receipt time,
-- min(timestamp_ms, received_at_ms), so a client clock ahead of the server (H13 lets a timestamp
-- be up to 24 h ahead) cannot outrank what the user sends next. Doubled, plus 1 for identifies:
-- at the same millisecond an identify, which sets the profile on purpose, beats an event's
-- user.email, whatever order the two topics are read in (replays give the same answer).
-- Emails stored before this migration keep versions in plain ms, which every new version exceeds:
-- after it, the next email written wins. A replay into a fresh database (docs README, Replay)
-- gives every row the new version.
--
-- The views are dropped and made again (a materialized view's query cannot be altered on 18.16).
-- Rows inserted into events or identifies between the two statements of a view reach no users
-- state: apply this migration with the projectors stopped (each applies it at start, before it
-- consumes), or replay afterwards. Run again, each pair drops and makes the same view again.
DROP TABLE IF EXISTS {db}.users_from_events_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.users_from_events_mv TO {db}.users AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxState(user_email, if(user_email = '', toInt64(0), least(timestamp_ms, received_at_ms) * 2)) AS email_state,
    minState(timestamp_ms) AS first_seen_state,
    maxState(timestamp_ms) AS last_seen_state
FROM {db}.events
GROUP BY account_id, environment, user_id;

DROP TABLE IF EXISTS {db}.users_from_identifies_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.users_from_identifies_mv TO {db}.users AS
SELECT
    account_id,
    environment,
    user_id,
    argMaxState(email, if(email = '', toInt64(0), least(timestamp_ms, received_at_ms) * 2 + 1)) AS email_state,
    minState(timestamp_ms) AS first_seen_state,
    maxState(timestamp_ms) AS last_seen_state
FROM {db}.identifies
GROUP BY account_id, environment, user_id;
