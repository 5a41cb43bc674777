import t from 'tap'
import {
  gcInPartsOnly,
  OWN_PROCESS_MARK,
  ownProcess,
  SINGLE_THREADED_GC,
  TCACHE_COUNT,
  withTcache,
} from './own-process.js'

const TCACHE = `glibc.malloc.tcache_count=${TCACHE_COUNT}`

t.test('the helpers are turned off only when the replay threads fill the cores', async (t) => {
  t.equal(gcInPartsOnly(2, 2), true, 'two threads on two cores')
  t.equal(gcInPartsOnly(4, 2), true, 'more threads than cores')
  t.equal(gcInPartsOnly(1, 2), false, 'one thread leaves a core to the helpers (measured faster with them)')
  t.equal(gcInPartsOnly(1, 1), false, 'one thread runs in this process as before')
  t.equal(gcInPartsOnly(2, 8), false, 'idle cores are the helpers’ to use')
})

t.test('the per-thread cache is added to the tunables given, unless they set it', async (t) => {
  t.equal(withTcache(undefined), TCACHE)
  t.equal(withTcache(''), TCACHE)
  t.equal(
    withTcache('glibc.malloc.arena_max=2'),
    `glibc.malloc.arena_max=2:${TCACHE}`,
    'an operator’s other tunables kept',
  )
  t.equal(withTcache('glibc.malloc.tcache_count=0'), undefined, 'an operator’s count stands')
  t.equal(withTcache(`glibc.malloc.arena_max=2:${TCACHE}`), undefined)
  t.equal(
    withTcache('glibc.malloc.tcache_count_x=1'),
    `glibc.malloc.tcache_count_x=1:${TCACHE}`,
    'a name that only starts the same is another tunable',
  )
})

t.test('the replay runs again only when this process lacks a setting it needs', async (t) => {
  const bare = ownProcess(2, 2, true, ['--import', 'tsx'], { PATH: '/bin' })
  t.same(bare?.execArgv, [SINGLE_THREADED_GC, '--import', 'tsx'])
  t.same(
    bare?.env,
    { PATH: '/bin', GLIBC_TUNABLES: TCACHE, [OWN_PROCESS_MARK]: '1' },
    'the rest of the environment is passed on',
  )
  t.same(bare?.reasons, ['without GC helper threads (A32)', `with ${TCACHE} (A39)`])

  const child = ownProcess(2, 2, true, bare!.execArgv, bare!.env)
  t.equal(child, undefined, 'the child does not start another')
  t.equal(
    ownProcess(2, 2, true, [], { [OWN_PROCESS_MARK]: '1' }),
    undefined,
    'nor does a child that lacks what it was to get: no chain of processes',
  )

  const one = ownProcess(1, 2, true, [], {})
  t.same(one?.execArgv, [], 'one thread keeps the GC helpers')
  t.same(one?.reasons, [`with ${TCACHE} (A39)`], 'but runs with the cache')
  t.equal(ownProcess(1, 2, true, [], { GLIBC_TUNABLES: TCACHE }), undefined)

  const flagged = ownProcess(2, 2, true, [SINGLE_THREADED_GC], {})
  t.same(flagged?.execArgv, [SINGLE_THREADED_GC], 'the flag is not given twice')
  t.same(flagged?.reasons, [`with ${TCACHE} (A39)`])

  const clear = ownProcess(2, 2, false, [], { PATH: '/bin' })
  t.same(
    clear?.env,
    { PATH: '/bin', [OWN_PROCESS_MARK]: '1' },
    'records in clear: the cache as glibc sets it (measured a little slower with ours)',
  )
  t.same(clear?.reasons, ['without GC helper threads (A32)'])
  t.equal(ownProcess(1, 2, false, [], {}), undefined, 'one thread over records in clear runs in this process')
})
