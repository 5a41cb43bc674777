// `npm run privacy -- rewrap [--check]` (A35): the master keys read from the environment as the services
// read them, the keys topic re-wrapped (or, with --check, counted) and the operator's next step printed
// (docs/privacy.md, "Rotating the master key").
import { commonSpec, readEnv } from '../../services/shared/src/env.js'
import { MasterKeyRing } from '../../services/shared/src/privacy/crypto/index.js'
import { privacyConfig, privacySpec } from '../../services/shared/src/privacy/crypto/privacy-config.js'
import { openAdmin } from '../admin-context.js'
import { type RewrapSummary, rewrap } from './rewrap.js'

export const REWRAP_USAGE = `  rewrap [--check]                                            after PRIVACY_MASTER_KEY was rotated: every data key an
                                                              old master (PRIVACY_OLD_MASTER_KEY) wraps is wrapped
                                                              again by the new one; --check only counts what is left`

/** What the operator reads after a run, and whether the rotation may go on (exit 0). */
export function rewrapReport(s: RewrapSummary, check: boolean): { lines: string[]; ok: boolean } {
  const lines = [
    `rewrap${check ? ' --check' : ''}: ${s.records} records of the keys topic read in ${s.durationMs} ms: ` +
      `${s.current} keys wrapped by PRIVACY_MASTER_KEY, ${s.old} by an old master key, ${s.unopened} by no key given` +
      (check
        ? ''
        : `; ${s.rewrapped} written again under PRIVACY_MASTER_KEY, ${s.retombstoned} tombstones written again`),
  ]
  if (s.unopened > 0)
    lines.push(
      `${s.unopened} keys open with none of the master keys given: add the master that wrapped them to PRIVACY_OLD_MASTER_KEY and run rewrap again; the projector stops on such a key (KEY_UNWRAP_FAILED)`,
    )
  else if (check && s.old === 0)
    lines.push(
      'No record of the keys topic opens with an old master key: remove PRIVACY_OLD_MASTER_KEY from every service and destroy it (keep PRIVACY_PSEUDONYM_KEY).',
    )
  else if (check)
    lines.push(
      `${s.old} records still open with an old master key: re-wrapped keys' old copies and erased keys wait for the keys topic's cleaner (KEYS_MAX_COMPACTION_LAG_MS + KEYS_DELETE_RETENTION_MS); a key not re-wrapped yet waits for rewrap`,
    )
  else
    lines.push(
      'The cleaner drops the old copies within KEYS_MAX_COMPACTION_LAG_MS + KEYS_DELETE_RETENTION_MS (24 h by default): run `npm run privacy -- rewrap --check` until it counts none, then remove PRIVACY_OLD_MASTER_KEY.',
    )
  return { lines, ok: s.unopened === 0 && (!check || s.old === 0) }
}

/** The run with the master keys and the keys topic of `env`, as the services read them. */
export async function rewrapWith(
  env: Record<string, string | undefined>,
  check: boolean,
  note: (line: string) => void,
): Promise<RewrapSummary> {
  const masters = MasterKeyRing.of(privacyConfig(readEnv({ ...commonSpec, ...privacySpec }, env)))
  const { cfg, kafka, producer, close } = await openAdmin(env)
  try {
    if (masters.keys.length === 1 && !check)
      note('PRIVACY_OLD_MASTER_KEY is not set: every key the current master opens is counted, none re-wrapped')
    return await rewrap({ kafka, producer, topic: cfg.topics.keys!, masters, note, progressMs: 1000 }, { check })
  } finally {
    await close()
  }
}

export async function rewrapCommand(a: { check?: boolean }, env = process.env): Promise<number> {
  const check = a.check === true
  const s = await rewrapWith(env, check, (line) => process.stderr.write(`${line}\n`))
  const { lines, ok } = rewrapReport(s, check)
  console.log(lines.join('\n'))
  return ok ? 0 : 1
}
