// The process entry shared by every service: read and validate the configuration once (exit 2
// naming the variable), build the service through its composition root, start it, and on SIGINT
// or SIGTERM close it (which drains) before exiting. The signals are handled from the start, so a
// service still waiting for a dependency (see wait-for.ts) stops cleanly too.
import { createLogger, type Level, type Logger } from './log.js'

export interface Runnable {
  start(): Promise<unknown>
  close(): Promise<void>
}

export function runService<C extends { logLevel: Level }>(
  name: string,
  moduleUrl: string,
  loadConfig: (env: Record<string, string | undefined>) => C,
  create: (cfg: C, log: Logger) => Promise<Runnable>,
): void {
  // Only when the file is the process's entry point, not when a test imports the module.
  if (moduleUrl !== `file://${process.argv[1]}`) return
  let cfg: C
  try {
    cfg = loadConfig(process.env)
  } catch (err) {
    process.stderr.write(`${name}: configuration error: ${(err as Error).message}\n`)
    process.exit(2)
  }
  const log = createLogger(cfg.logLevel, { svc: name })
  let svc: Runnable | undefined
  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    log.info(`${name} stopping`, { signal })
    await svc?.close().catch((err) => log.error(`${name} close failed`, { err }))
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  const main = async () => {
    svc = await create(cfg, log)
    await svc.start()
  }
  main().catch((err) => {
    // Closing ends the waits of start(): that is the drain, not a failure.
    if (closing) return
    process.stderr.write(`${name}: failed to start: ${err?.stack ?? err}\n`)
    process.exit(1)
  })
}
