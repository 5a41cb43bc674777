// A37: which materialized views a fresh replay fills after its last insert, and the statement that fills one
// partition, from the statements as ClickHouse 26.9's system.tables gives them.
import t from 'tap'
import { fillStatement, viewParts } from './deferred-views.js'

const USERS =
  "CREATE MATERIALIZED VIEW db1.users_from_events_mv TO db1.users (`account_id` String, `environment` Enum8('live' = 1, 'test' = 2), `user_id` String, `email_state` AggregateFunction(argMax, String, Int64)) AS SELECT account_id, environment, user_id, argMaxState(user_email, if(user_email = '', toInt64(0), timestamp_ms)) AS email_state FROM db1.events GROUP BY account_id, environment, user_id"
const GROUPS =
  "CREATE MATERIALIZED VIEW db1.groups_from_events_mv TO db1.groups (`account_id` String, `group_id` String) AS SELECT account_id, visitParamExtractString(properties, 'group_id') AS group_id FROM db1.events WHERE (event = '$group') OR (event = 'x')"

t.test('a view reading one table of the database is split into its parts', async (t) => {
  t.same(viewParts('db1', USERS), {
    name: 'users_from_events_mv',
    target: 'users',
    source: 'events',
    select:
      "SELECT account_id, environment, user_id, argMaxState(user_email, if(user_email = '', toInt64(0), timestamp_ms)) AS email_state FROM db1.events GROUP BY account_id, environment, user_id",
    fromEnd: 142,
  })
  t.equal(viewParts('db1', GROUPS)?.target, 'groups')
})

t.test('any other shape stays running (undefined)', async (t) => {
  t.equal(viewParts('db2', USERS), undefined, 'another database')
  t.equal(viewParts('db1', USERS.replace(' TO db1.users ', ' ')), undefined, 'no TO table')
  t.equal(viewParts('db1', USERS.replace('FROM db1.events', 'FROM other.events')), undefined, 'a source elsewhere')
  t.equal(
    viewParts('db1', USERS.replace('GROUP BY', 'ANY LEFT JOIN db1.users USING (user_id) GROUP BY')),
    undefined,
    'a join',
  )
  t.equal(
    viewParts('db1', USERS.replace('FROM db1.events', 'FROM (SELECT * FROM db1.events)')),
    undefined,
    'a subquery',
  )
  t.equal(viewParts('db1', GROUPS.replace(' WHERE ', ' PREWHERE ')), undefined, 'a PREWHERE of its own')
  t.equal(viewParts('db1', 'CREATE VIEW db1.v AS SELECT 1'), undefined, 'a plain view')
})

t.test('the fill reads one partition of the source, ANDed with the view own WHERE', async (t) => {
  t.equal(
    fillStatement('db1', viewParts('db1', USERS)!, ['account_id', 'environment', 'user_id', 'email_state'], '202611'),
    "INSERT INTO db1.users (`account_id`, `environment`, `user_id`, `email_state`) SELECT account_id, environment, user_id, argMaxState(user_email, if(user_email = '', toInt64(0), timestamp_ms)) AS email_state FROM db1.events PREWHERE _partition_id = '202611' GROUP BY account_id, environment, user_id",
  )
  t.equal(
    fillStatement('db1', viewParts('db1', GROUPS)!, ['account_id', 'group_id'], "it's"),
    "INSERT INTO db1.groups (`account_id`, `group_id`) SELECT account_id, visitParamExtractString(properties, 'group_id') AS group_id FROM db1.events PREWHERE _partition_id = 'it\\'s' WHERE (event = '$group') OR (event = 'x')",
  )
  t.throws(() => fillStatement('db1', viewParts('db1', GROUPS)!, ['bad name'], '1'), { code: 'SQL_BIND_ERROR' })
})
