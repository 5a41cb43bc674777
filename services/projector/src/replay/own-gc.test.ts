import t from 'tap'
import { gcInPartsOnly, needsOwnGcProcess, SINGLE_THREADED_GC } from './own-gc.js'

t.test('the helpers are turned off only when the replay threads fill the cores', async (t) => {
  t.equal(gcInPartsOnly(2, 2), true, 'two threads on two cores')
  t.equal(gcInPartsOnly(4, 2), true, 'more threads than cores')
  t.equal(gcInPartsOnly(1, 2), false, 'one thread leaves a core to the helpers (measured faster with them)')
  t.equal(gcInPartsOnly(1, 1), false, 'one thread runs in this process as before')
  t.equal(gcInPartsOnly(2, 8), false, 'idle cores are the helpers’ to use')
})

t.test('the replay runs again only when this process was not started with the flag', async (t) => {
  t.equal(needsOwnGcProcess(2, 2, []), true)
  t.equal(needsOwnGcProcess(2, 2, ['--import', 'tsx']), true)
  t.equal(needsOwnGcProcess(2, 2, [SINGLE_THREADED_GC, '--import', 'tsx']), false, 'the child does not start another')
  t.equal(needsOwnGcProcess(1, 2, []), false)
})
