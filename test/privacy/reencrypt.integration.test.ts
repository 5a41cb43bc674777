// A19 against the real stack: `npm run privacy -- reencrypt` copies an event topic written in clear (sealing
// off, as before A15) into sealed form. Afterwards no byte of the destination names either person (one of them erased), the
// survivor's records open with keys on the keys topic, in their order; the erased person's records are
// there as stubs no key opens (their usage counts). A run killed mid-way and run again leaves every
// record exactly once.
import t from 'tap'
import { startServices, type TestServices } from '../support/harness.js'
import { readTopic, type RawRecord } from '../support/read-topic.js'
import { runCli, type CliRun } from '../support/run-cli.js'
import { openAdmin, openPrivacy } from '../../scripts/admin-context.js'
import { decryptRecord, unwrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'

/** The history a deployment wrote before it turned sealing on (A29: on by default; reencrypt-plan.ts's steps). */
const CLEAR = { PRIVACY_ENCRYPT: 'false' }
const MARK = `rk${Date.now().toString(36)}q`
const encodings = (s: string) => [s, Buffer.from(s).toString('base64'), Buffer.from(s).toString('hex')]
const holds = (r: RawRecord, s: string) =>
  [r.key, r.value].some((b) => b !== null && encodings(s).some((e) => b.includes(Buffer.from(e))))

/** The tool as an operator runs it, as a child process; `onStart` gets it to kill it. */
function runTool(s: TestServices, args: string[], onStart?: (kill: () => void) => void): Promise<CliRun> {
  return runCli('scripts/privacy.ts', ['reencrypt', ...args], s.env, (child) => onStart?.(() => child.kill('SIGKILL')))
}

async function decodeAll(s: TestServices, records: RawRecord[]) {
  const { codec, close } = await openAdmin(s.env)
  try {
    return await Promise.all(records.map(async (r) => ({ raw: r, value: (await codec.decode(r.value!)).value })))
  } finally {
    await close()
  }
}

t.test('clear history sealed, an erased person stubbed, order and keys kept', async (t) => {
  const s = await startServices(t, { projector: false, env: CLEAR })
  const { key, accountId } = await s.createKey({ type: 'live' })
  const keep = `${MARK}-keep`
  const gone = `${MARK}-gone`
  for (let i = 0; i < 4; i++)
    for (const id of [keep, gone]) {
      const user = { id, email: `${id}@example.com`, traits: { name: `${id}-name` } }
      const r = await s.post('/v1/event', { event: `step${i}`, user, properties: { n: i, note: `${id}-p` } }, { key })
      t.equal(r.status, 200)
    }
  const source = await readTopic(s.kafka, s.topics.events)
  t.ok(
    source.some((r) => holds(r, MARK)),
    'the source holds the markers in clear',
  )
  const { privacy, close } = await openPrivacy(s.env)
  await privacy.requestErasure({ accountId, userId: gone, requestedBy: 'test', suppress: false })
  await close()

  const to = `${s.topics.events}.sealed`
  const run = await runTool(s, ['--from', s.topics.events, '--to', to])
  t.equal(run.code, 0, run.err)
  t.match(run.out, /Switch the topic names/, 'prints what to do next')
  const dest = await readTopic(s.kafka, to)
  t.equal(dest.length, 8, 'every record is copied')
  t.same(
    dest.filter((r) => holds(r, keep) || holds(r, gone) || holds(r, MARK)).length,
    0,
    'no byte of any record names either person, plain, base64 or hex',
  )
  const master = loadIngestConfig(s.env).privacy.masterKey
  const keys = new Map(
    (await readTopic(s.kafka, s.topics.keys!)).map((k) => [
      k.key!.toString(),
      unwrapDataKey(master, k.key!.toString(), k.value!),
    ]),
  )
  const opened = (await decodeAll(s, dest)).map((d) => decryptRecord('event', d.value, (id) => keys.get(id)))
  const survivors = opened.filter((o) => o !== undefined)
  t.same(
    survivors.map((o) => [o.user_id, o.event]),
    [0, 1, 2, 3].map((i) => [keep, `step${i}`]),
    "the survivor's records open with stored keys, in their order",
  )
  t.equal(opened.filter((o) => o === undefined).length, 4, "the erased person's four records open for nobody")
})

t.test('a run killed mid-way and run again copies every record once', async (t) => {
  const s = await startServices(t, { projector: false, env: CLEAR })
  const { key } = await s.createKey({ type: 'live' })
  const sent_at = new Date().toISOString()
  // One person a request: its records are one partition's (a request spanning partitions is a transaction).
  for (let b = 0; b < 6; b++) {
    const events = Array.from({ length: 40 }, (_, i) => ({
      type: 'event',
      event: `e${b}-${i}`,
      user: { id: `${MARK}-u${b}` },
    }))
    t.equal((await s.post('/v1/events', { sent_at, events }, { key })).status, 200)
  }
  const to = `${s.topics.events}.sealed`
  const source = await readTopic(s.kafka, s.topics.events)
  const killed = await runTool(
    s,
    ['--from', s.topics.events, '--to', to, '--chunk', '5', '--pace-ms', '50'],
    (kill) => {
      const poll = setInterval(async () => {
        const admin = s.kafka.admin()
        await admin.connect()
        const ends = await admin.fetchTopicOffsets(to).catch(() => [])
        await admin.disconnect()
        if (ends.reduce((n, p) => n + Number(p.high), 0) > 0) {
          clearInterval(poll)
          kill()
        }
      }, 100)
    },
  )
  t.equal(killed.signal, 'SIGKILL', `the first run was killed: ${killed.err}`)
  const partial = await readTopic(s.kafka, to)
  t.ok(partial.length > 0 && partial.length < source.length, `killed mid-way (${partial.length}/${source.length})`)

  const rerun = await runTool(s, ['--from', s.topics.events, '--to', to, '--chunk', '5'])
  t.equal(rerun.code, 0, rerun.err)
  const ids = (await decodeAll(s, await readTopic(s.kafka, to))).map((d) => d.value.event_id as string)
  const want = (await decodeAll(s, source)).map((d) => d.value.event_id as string)
  t.equal(ids.length, want.length, 'as many records as the source: no duplicates')
  t.same([...ids].sort(), [...want].sort(), 'the same event ids: none lost')
})
