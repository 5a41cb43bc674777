// An erasure's first step at the scale an account runs (docs/privacy.md, "Erasing a person"): the purge of
// one person's rows (privacy/purge.ts, the function the projector's erasure worker calls) from a database
// holding one account's 10 million events, 200,000 persons with their identifies and traits, and the daily
// and hourly counts built from them (bench/dashboard-fill.ts, the dashboard bench's fill, merged first as an
// account's month of data would be). Times each purge from its first statement to no row left, with the
// ClickHouse server's CPU, for several persons in turn; the issue's bound is 60 s.
//   npx tsx bench/erasure-purge.ts [events] [persons] [erasures]
// BATCHES=1,200,1: the persons each purge erases at once, as the erasure worker's batches do (A31); the
// default is one person a purge, [erasures] times.
// Against the running stack (STACK_DIR/CLICKHOUSE_HTTP_PORT as bench/processes.ts's stackEnv); its database,
// bench_purge_<id>, is dropped at the end (KEEP=1 keeps it).
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { ident, raw, sql } from '../schemas/clickhouse/sql.js'
import { openClickHouse } from '../services/shared/src/clickhouse.js'
import { commonConfig, commonSpec, readEnv } from '../services/shared/src/env.js'
import { createLogger } from '../services/shared/src/log.js'
import { createFreshDatabase } from '../services/projector/src/replay/fresh.js'
import { purgePeople } from '../services/projector/src/privacy/purge.js'
import { fillAccount } from './dashboard-fill.js'
import { mergesSettled } from './dashboard-pages.js'
import { clickhousePid } from './replay.js'
import { cpuSeconds, stackEnv } from './processes.js'

const EVENTS = Number(process.argv[2] ?? 10_000_000)
const PERSONS = Number(process.argv[3] ?? 200_000)
const ERASURES = Number(process.argv[4] ?? 3)
const BATCHES = (process.env.BATCHES ?? Array(ERASURES).fill('1').join(',')).split(',').map(Number)
const ACCOUNT = 'acct_purge'
const env = stackEnv(process.env as Record<string, string>)
const cfg = commonConfig(readEnv(commonSpec, env))
const database = `bench_purge_${randomBytes(3).toString('hex')}`
const say = (line: string) => process.stderr.write(`${line}\n`)
const ch = openClickHouse(cfg.clickhouse, { requestTimeoutMs: 1_800_000 })
const chPid = clickhousePid(env)

async function count(table: string, where: string): Promise<number> {
  const [r] = await (
    await ch.query({
      query: `SELECT count() AS n FROM ${ident(database, table)} WHERE ${where}`,
      format: 'JSONEachRow',
    })
  ).json<{ n: string }>()
  return Number(r?.n ?? 0)
}

try {
  await createFreshDatabase(cfg.clickhouse, database, createLogger('warn', { service: 'bench' }))
  say(
    `erasure-purge: filling ${EVENTS.toLocaleString('en-US')} events of ${PERSONS.toLocaleString('en-US')} persons into ${database}`,
  )
  const t0 = performance.now()
  await fillAccount(ch, database, ACCOUNT, Math.floor(Date.now() / 1000), { events: EVENTS, persons: PERSONS })
  const fillSec = Math.round((performance.now() - t0) / 1000)
  const mergedSec = await mergesSettled(ch, database)
  const filled = await count('events', '1')
  say(`erasure-purge: filled in ${fillSec} s, merged ${mergedSec} s later; ${filled} events`)
  const rows: string[] = []
  const erasures = BATCHES.reduce((n, b) => n + b, 0)
  for (let i = 0, erased = 0; i < BATCHES.length; erased += BATCHES[i]!, i++) {
    // Persons spread over the fill (user_<k>, k < PERSONS): each has events in every part of the month.
    const people = Array.from({ length: BATCHES[i]! }, (_, j) => ({
      account_id: ACCOUNT,
      user_id: `user_${Math.floor(((erased + j) * PERSONS) / erasures) + 7}`,
    }))
    const ch0 = chPid === null ? null : cpuSeconds(chPid)
    const load = loadavg()[0]!.toFixed(1)
    const start = performance.now()
    const result = await purgePeople(ch, database, people)
    const sec = (performance.now() - start) / 1000
    const ch1 = chPid === null ? null : cpuSeconds(chPid)
    const left = await count(
      'events',
      sql`account_id = ${ACCOUNT} AND user_id IN (${raw(people.map((p) => sql`${p.user_id}`).join(', '))})`,
    )
    const found = Object.entries(result.found)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')
    rows.push(
      [
        people.length === 1 ? people[0]!.user_id : `${people.length} persons`,
        found,
        result.rounds,
        sec.toFixed(1),
        ch0 === null || ch1 === null ? '-' : (ch1 - ch0).toFixed(1),
        left,
        load,
      ].join('\t'),
    )
    say(`erasure-purge: ${rows.at(-1)}`)
  }
  process.stdout.write(
    `${[
      `erasure-purge: ${EVENTS.toLocaleString('en-US')} events, ${PERSONS.toLocaleString('en-US')} persons, one account (filled in ${fillSec} s, merged ${mergedSec} s later)`,
      ['persons', 'rows found', 'rounds', 'seconds', 'ClickHouse CPU s', 'events left', 'load'].join('\t'),
      ...rows,
    ].join('\n')}\n`,
  )
} finally {
  if (process.env.KEEP !== '1') await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` })
  await ch.close()
}
