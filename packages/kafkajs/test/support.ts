// The vendored files and their upstream copies (<name>.upstream.js, byte for byte the npm tarball's:
// upstream.test.ts checks), loaded side by side for the differential tests.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** A module of the vendored source, by its path under src/. */
export const src = <T = any>(path: string): T => require(`../src/${path}`) as T

/** The upstream copy of a replaced module (src/<path> with .js replaced by .upstream.js). */
export const upstream = <T = any>(path: string): T => src<T>(path.replace(/\.js$/, '.upstream.js'))

/** Encoders read the clock once per partition: both sides of a comparison run with the same one. */
export async function withClock<T>(ms: number, f: () => Promise<T>): Promise<T> {
  const real = Date.now
  Date.now = () => ms
  try {
    return await f()
  } finally {
    Date.now = real
  }
}
