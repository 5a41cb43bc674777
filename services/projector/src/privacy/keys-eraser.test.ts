import t from 'tap'
import { leftBefore, liveKeyIds, type KeyEntry } from '../../../shared/src/privacy/keys-scan.js'
import { ofIdsBefore } from './keys-eraser.js'

const person = 'acme\u0000p1\u0000'
const entry = (id: string, tombstone: boolean, at: number): KeyEntry => ({ id: `${person}${id}`, tombstone, at })

t.test("A35: an erasure's disk check counts a key of the person re-wrapped after the erasure", async (t) => {
  const until = 20
  const entries = [
    entry('2026-10\u0000s1', false, 10), // the person's key
    entry('2026-10\u0000s1', true, 20), // the erasure's tombstone (history_unreadable_at)
    entry('2026-10\u0000s1', false, 30), // a rewrap that read the key before the tombstone, written after
    entry('2026-12\u0000s2', false, 40), // a key minted after the erasure: another id, not the erasure's
  ]
  const mine = ofIdsBefore(entries, until)
  t.same(
    mine.map((e) => e.at),
    [10, 20, 30],
    "every record of the ids the person had by the erasure, the re-wrapped copy too; not the later person's key",
  )
  t.equal(leftBefore(mine, person, Number.POSITIVE_INFINITY), 3, 'so disk_gone_at waits for the copy too')
  t.same(liveKeyIds(mine, person), [`${person}2026-10\u0000s1`], 'and the check tombstones it again')
})
