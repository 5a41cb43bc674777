// Summarizes a V8 .cpuprofile (from `npm run bench -- --profile`): self time by package or area
// and the hottest functions, so BENCHMARKS.md can say where the time goes.
//   npx tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top]
import { readFileSync } from 'node:fs'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: number[]
}
interface Profile {
  nodes: Node[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

const [file, topArg] = process.argv.slice(2)
if (!file) {
  process.stderr.write('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]\n')
  process.exit(2)
}
const top = Number(topArg ?? 30)
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(p.nodes.map((n) => [n.id, n]))
const self = new Map<number, number>()
for (let i = 0; i < p.samples.length; i++)
  self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0))
const total = [...self.values()].reduce((a, b) => a + b, 0)

function area(url: string, fn: string): string {
  if (!url) return fn === '(garbage collector)' ? 'GC' : fn === '(idle)' || fn === '(program)' ? fn : `native ${fn}`
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (nm) return nm[1]
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`
  const m = /\/(services\/[^/]+\/src\/[^/]+|schemas)\//.exec(url)
  return m ? m[1] : url
}

const areas = new Map<string, number>()
const fns = new Map<string, number>()
for (const [id, t] of self) {
  const n = byId.get(id)!
  const cf = n.callFrame
  const a = area(cf.url, cf.functionName)
  areas.set(a, (areas.get(a) ?? 0) + t)
  const f = `${cf.functionName || '(anonymous)'} ${cf.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(services|schemas|bench)\//, '$1/')}:${cf.lineNumber + 1}`
  fns.set(f, (fns.get(f) ?? 0) + t)
}
const pct = (t: number) => ((100 * t) / total).toFixed(1).padStart(5) + '%'
const busy = total - (areas.get('(idle)') ?? 0)
process.stdout.write(
  `profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy\n\nself time by area:\n`,
)
for (const [a, t] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, top)) process.stdout.write(`  ${pct(t)}  ${a}\n`)
process.stdout.write('\nhottest functions (self time):\n')
for (const [f, t] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) process.stdout.write(`  ${pct(t)}  ${f}\n`)
