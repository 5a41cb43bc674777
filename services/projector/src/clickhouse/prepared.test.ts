import t from 'tap'
import { buildEventRows, buildIdentifyRows, newArenas, prepareEvent, prepareIdentify, unbuilt } from './prepared.js'
import { EVENT_COLUMNS, RowMappingError } from './rows.js'
import { insertBody } from './partition-groups.js'
import { makeEvent, makeIdentify } from '../../../../test/support/clickhouse-helpers.js'

const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8')

t.test('a prepared record keeps its H16 key and where its rows are, not the record unless asked', async (t) => {
  const arenas = newArenas()
  const r = makeEvent({ event_id: 'e1', message_id: 'm1', user_traits: '{"plan":"pro","seats":2}' })
  const p = prepareEvent(r, arenas, null, false)
  t.match(p, {
    event_id: 'e1',
    account_id: r.account_id,
    message_id: 'm1',
    timestamp: r.timestamp,
    record: null,
    origin: null,
  })
  const row = p.rowChunk!.toString('utf8', p.rowStart, p.rowEnd)
  t.equal(row.split('\t').length, EVENT_COLUMNS.length)
  t.ok(row.endsWith('\n'))
  t.same(
    p
      .traitChunk!.toString('utf8', p.traitStart, p.traitEnd)
      .split('\n')
      .slice(0, -1)
      .map((l) => l.split('\t')[3]),
    ['plan', 'seats'],
  )
  const i = makeIdentify()
  t.equal(prepareIdentify(i, arenas, null, true).record, i, 'kept when asked')
  t.equal(prepareEvent(makeEvent(), arenas, null, false).traitChunk, null, 'no traits, no trait rows')
})

t.test('a record that cannot be mapped appends nothing, not even its valid rows', async (t) => {
  const arenas = newArenas()
  prepareEvent(makeEvent({ event_id: 'ok' }), arenas, null, false)
  const rowsPos = arenas.rows.pos
  const traitsPos = arenas.traits.pos
  // the events row is fine; a trait key is not
  t.throws(
    () => prepareEvent(makeEvent({ event_id: 'bad', user_traits: '{"\\ud800":1}' }), arenas, null, false),
    RowMappingError,
  )
  t.throws(
    () => prepareEvent(makeEvent({ event_id: 'bad2', properties: '\ud800' }), arenas, null, false),
    RowMappingError,
  )
  t.equal(arenas.rows.pos, rowsPos)
  t.equal(arenas.traits.pos, traitsPos)
})

t.test('rows built later are the rows built at decode; a failed build appends nothing', async (t) => {
  const arenas = newArenas()
  const r = makeEvent({ event_id: 'e1', user_traits: '{"a":1}' })
  const now = prepareEvent(r, arenas, null, false)
  const later = unbuilt(r, null)
  t.equal(later.rowChunk, null)
  t.equal(later.record, r, 'kept until built')
  buildEventRows(later, arenas)
  t.equal(text(insertBody([later], 'rows').chunks), text(insertBody([now], 'rows').chunks))
  t.equal(text(insertBody([later], 'traits').chunks), text(insertBody([now], 'traits').chunks))
  const i = unbuilt(makeIdentify({ event_id: 'i1' }), null)
  buildIdentifyRows(i, arenas)
  t.match(text(insertBody([i], 'rows').chunks), /^i1\t[^\n]*\n$/, 'its one row')
  const bad = unbuilt(makeEvent({ event_id: 'bad', timestamp: -1 }), null)
  const pos = arenas.rows.pos
  t.throws(() => buildEventRows(bad, arenas), RowMappingError)
  t.equal(bad.rowChunk, null)
  t.equal(arenas.rows.pos, pos)
  t.throws(() => insertBody([bad], 'rows'), /not built/)
})
