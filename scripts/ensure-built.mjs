// Runs `npm run build` when dist/ is missing or older than any source it is built from, so the
// CLIs (`npm run keys`, `npm run replay`) and `npm start` always run current compiled code
// without a build on every call.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const stamp = join(root, 'dist', '.built')

function newest(dir) {
  let max = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue
    const p = join(dir, e.name)
    max = Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return max
}

const sources = Math.max(
  ...['services', 'schemas', 'scripts'].map((d) => newest(join(root, d))),
  statSync(join(root, 'tsconfig.build.json')).mtimeMs,
)
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources) {
  process.stderr.write('building dist/ (sources changed since the last build)...\n')
  execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] })
}
