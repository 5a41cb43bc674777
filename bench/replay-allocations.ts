// What a replay allocates, by function: `npm run replay`'s command run in this process under V8's sampling
// heap profiler, counting every allocation, the ones collected since too (BENCHMARKS.md, "A replay's
// garbage"). The same environment and arguments as `npm run replay` (it replays whatever the environment's
// topics name, into the database the arguments name); run it against a topic the bench filled:
//   npm run build && npx tsx bench/replay-allocations.ts --topic events --target fresh --database scratch_db
// HEAP_PROFILE=file also writes the whole profile (Chrome DevTools opens it as a .heapprofile).
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { createLogger } from '../services/shared/src/log.js'
import { parseReplayArgs, runReplayCommand } from '../services/projector/src/replay/index.js'

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: SampleNode[]
}

/** Bytes allocated by each function itself, largest first. */
export function bytesByFunction(head: SampleNode): Array<[string, number]> {
  const self = new Map<string, number>()
  const walk = (n: SampleNode) => {
    const where = n.callFrame.url.split('/').slice(-2).join('/')
    const name = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`
    self.set(name, (self.get(name) ?? 0) + n.selfSize)
    for (const c of n.children) walk(c)
  }
  walk(head)
  return [...self].sort((a, b) => b[1] - a[1])
}

const cmd = parseReplayArgs(process.argv.slice(2))
if (cmd === 'help') throw new Error('usage: npx tsx bench/replay-allocations.ts <npm run replay arguments>')
const session = new Session()
session.connect()
await session.post('HeapProfiler.enable')
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
})
const report = await runReplayCommand(loadProjectorConfig(process.env), cmd, {
  log: createLogger('warn', { svc: 'replay' }),
  note: () => {},
})
const { profile } = await session.post('HeapProfiler.stopSampling')
if (process.env.HEAP_PROFILE) writeFileSync(process.env.HEAP_PROFILE, JSON.stringify(profile))
const rows = bytesByFunction(profile.head as SampleNode)
const total = rows.reduce((sum, [, bytes]) => sum + bytes, 0)
const records = Math.max(1, report.summary.records)
process.stdout.write(
  `${report.summary.records} records: ${(total / 1e6).toFixed(0)} MB allocated, ${(total / records).toFixed(0)} B a record\n`,
)
for (const [name, bytes] of rows.slice(0, Number(process.env.TOP ?? 30)))
  process.stdout.write(
    `${(bytes / 1e6).toFixed(1).padStart(9)} MB  ${(bytes / records).toFixed(0).padStart(5)} B/rec  ${name}\n`,
  )
process.exit(0)
