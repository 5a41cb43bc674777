// `npm run privacy -- reencrypt --from T --to T2 [--chunk N] [--pace-ms MS]` (A19): options checked,
// the master key read from the environment as the services read it (A15), the copy run, and the
// operator's next steps printed (docs/privacy.md, "Re-encrypting old history").
import { AdminError } from '../../services/shared/src/accounts/accounts-admin.js'
import { commonSpec, readEnv } from '../../services/shared/src/env.js'
import { privacyConfig, privacySpec } from '../../services/shared/src/privacy/crypto/privacy-config.js'
import { openAdmin } from '../admin-context.js'
import { afterwardSteps } from './reencrypt-plan.js'
import { reencrypt } from './reencrypt.js'

export const REENCRYPT_USAGE = `  reencrypt --from TOPIC --to TOPIC [--chunk N] [--pace-ms MS]
                                                              copy an event topic with its clear records sealed
                                                              (keys first), erased people's as usage stubs;
                                                              resumable: rerun the same command after a crash`

export interface ReencryptArgs {
  from?: string
  to?: string
  chunk?: string
  'pace-ms'?: string
}

const count = (name: string, raw: string | undefined, fallback: number, min: number): number => {
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new AdminError('INVALID', `--${name} must be an integer >= ${min}`)
  return Number(raw)
}

export async function reencryptCommand(a: ReencryptArgs, env = process.env): Promise<number> {
  if (!a.from || !a.to) throw new AdminError('INVALID', 'reencrypt needs --from TOPIC and --to TOPIC')
  if (a.from === a.to) throw new AdminError('INVALID', '--from and --to must differ')
  const chunk = count('chunk', a.chunk, 2000, 1)
  const paceMs = count('pace-ms', a['pace-ms'], 0, 0)
  const { masterKey, pseudonymKey } = privacyConfig(readEnv({ ...commonSpec, ...privacySpec }, env))
  const { cfg, log, kafka, codec, close } = await openAdmin(env)
  const note = (line: string) => process.stderr.write(`${line}\n`)
  try {
    const s = await reencrypt(
      { kafka, codec, cfg, masterKey, pseudonymKey, log, note },
      { from: a.from, to: a.to, chunk, paceMs, progressMs: 1000 },
    )
    const rate = s.durationMs > 0 ? Math.round((s.records * 1000) / s.durationMs) : 0
    note(
      `reencrypt: ${s.records} records read in ${s.durationMs} ms (${rate} records/s): ${s.sealed} sealed, ` +
        `${s.copied} copied as they were, ${s.stubbed} usage stubs of erased people, ${s.skipped} already there; ${s.keys} keys written`,
    )
    console.log(afterwardSteps(a.from, a.to))
    return 0
  } finally {
    await close()
  }
}
