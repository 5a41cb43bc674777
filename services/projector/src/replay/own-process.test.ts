import t from 'tap'
import {
  gcInPartsOnly,
  JEMALLOC_CONF,
  jemallocLibrary,
  OWN_PROCESS_MARK,
  ownProcess,
  SINGLE_THREADED_GC,
  TCACHE_COUNT,
  withJemalloc,
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

const JE = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2'

t.test('the jemalloc REPLAY_JEMALLOC names', async (t) => {
  const only = (path: string) => (p: string) => p === path
  t.equal(jemallocLibrary('auto', only(JE), 'x64'), JE, 'auto: Debian’s, where its package puts it')
  t.equal(
    jemallocLibrary('auto', only('/usr/lib/aarch64-linux-gnu/libjemalloc.so.2'), 'arm64'),
    '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  )
  t.equal(
    jemallocLibrary('auto', () => false, 'x64'),
    undefined,
    'auto without the package: none',
  )
  t.equal(
    jemallocLibrary('auto', () => true, 'riscv64'),
    undefined,
    'an architecture Debian’s path is not known for',
  )
  t.equal(
    jemallocLibrary('off', () => true, 'x64'),
    undefined,
  )
  t.equal(
    jemallocLibrary('/opt/je.so', () => false, 'x64'),
    '/opt/je.so',
    'a path (the config checked it exists)',
  )
})

t.test('jemalloc is preloaded first, unless it is preloaded already', async (t) => {
  t.same(withJemalloc({}, JE), { LD_PRELOAD: JE, MALLOC_CONF: JEMALLOC_CONF })
  t.same(
    withJemalloc({ LD_PRELOAD: '/opt/other.so', MALLOC_CONF: 'narenas:2' }, JE),
    { LD_PRELOAD: `${JE}:/opt/other.so`, MALLOC_CONF: 'narenas:2' },
    'an operator’s other libraries and jemalloc settings kept',
  )
  t.equal(withJemalloc({ LD_PRELOAD: '/usr/local/lib/libjemalloc.so' }, JE), undefined, 'an operator’s jemalloc stands')
  t.equal(withJemalloc({ LD_PRELOAD: `/opt/a.so ${JE}` }, JE), undefined, 'in a list separated by spaces too')
})

t.test('with jemalloc there, a sealed replay runs with it instead of the larger glibc cache', async (t) => {
  const bare = ownProcess(2, 2, true, [], { PATH: '/bin' }, JE)
  t.same(bare?.execArgv, [SINGLE_THREADED_GC])
  t.same(bare?.env, { PATH: '/bin', LD_PRELOAD: JE, MALLOC_CONF: JEMALLOC_CONF, [OWN_PROCESS_MARK]: '1' })
  t.same(bare?.reasons, ['without GC helper threads (A32)', `with jemalloc ${JE} (A40)`])
  t.equal(ownProcess(2, 2, true, bare!.execArgv, bare!.env, JE), undefined, 'its child starts no other')

  const one = ownProcess(1, 2, true, [], {}, JE)
  t.same(one?.reasons, [`with jemalloc ${JE} (A40)`], 'one thread: jemalloc, the GC helpers kept')
  t.equal(ownProcess(1, 2, true, [], { LD_PRELOAD: JE }, JE), undefined, 'preloaded already: this process')

  const clear = ownProcess(2, 2, false, [], { PATH: '/bin' }, JE)
  t.same(clear?.env, { PATH: '/bin', [OWN_PROCESS_MARK]: '1' }, 'records in clear: the allocator as it is')
  t.equal(ownProcess(1, 2, false, [], {}, JE), undefined)
})
