// A small JSON-lines logger: one line per entry on stderr, levels filtered at creation.
// Callers pass structured fields; API keys never reach it (auth logs key ids, not secrets).
export type Level = 'debug' | 'info' | 'warn' | 'error'
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  child(fields: Record<string, unknown>): Logger
}

export function createLogger(
  level: Level = 'info',
  base: Record<string, unknown> = {},
  out: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): Logger {
  const min = ORDER[level]
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return
    const entry: Record<string, unknown> = { t: new Date().toISOString(), level: lvl, msg, ...base, ...fields }
    if (fields?.err instanceof Error) entry.err = serializeError(fields.err)
    out(JSON.stringify(entry))
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (f) => createLogger(level, { ...base, ...f }, out),
  }
}

/** An error as plain fields (JSON and a thread's message carry it whole). */
export function serializeError(err: Error): Record<string, unknown> {
  const e: Record<string, unknown> = { name: err.name, message: err.message }
  if ((err as any).code) e.code = (err as any).code
  if (err.stack) e.stack = err.stack.split('\n').slice(0, 6).join('\n')
  if (err.cause instanceof Error) e.cause = serializeError(err.cause)
  return e
}
