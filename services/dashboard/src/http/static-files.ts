// Serves the front end in ../public (plain HTML, CSS and JS modules in its subfolders: no build step,
// U10). Only files that exist at start are served (no path is built from the request), with
// revalidation on every load.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, extname } from 'node:path'
import { createHash } from 'node:crypto'
import type Koa from 'koa'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
}

interface Asset {
  body: Buffer
  type: string
  etag: string
}

export function loadAssets(dir: string, prefix = '', assets = new Map<string, Asset>()): Map<string, Asset> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) {
      loadAssets(path, `${prefix}/${name}`, assets)
      continue
    }
    const type = TYPES[extname(name)]
    if (!type || !statSync(path).isFile()) continue
    const body = readFileSync(path)
    assets.set(`${prefix}/${name}`, { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` })
  }
  return assets
}

/** GET /: index.html; GET /name.ext: that asset; anything else falls through. */
export function staticFiles(assets: Map<string, Asset>): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next()
    const a = assets.get(ctx.path === '/' ? '/index.html' : ctx.path)
    if (!a) return next()
    ctx.set('Cache-Control', 'no-cache')
    ctx.set('ETag', a.etag)
    if (ctx.get('If-None-Match') === a.etag) {
      ctx.status = 304
      return
    }
    ctx.type = a.type
    ctx.body = a.body
  }
}
