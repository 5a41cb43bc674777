// npm run privacy -- <command>: erase people and see the receipts (A12), and set an account's IP
// handling (H56). Everything is a record on the erasures or accounts topic; docs/privacy.md.
//   erase --account ACME --user U [--suppress] [--no-wait]
//   list --account ACME [--json]
//   ip --account ACME --mode full|truncated|none
//   retention --account ACME --months 12   (0: for ever, H60)
//   reencrypt --from T --to T2             (A19: old history sealed, so it can be erased too)
//   rewrap [--check]                       (A35: data keys wrapped again after the master key rotated)
import { userInfo } from 'node:os'
import { parseArgs } from 'node:util'
import { openPrivacy, runCli } from './admin-context.js'
import { AdminError } from '../services/shared/src/accounts/accounts-admin.js'
import { IP_HANDLINGS, type ErasureRecord, type IpHandling } from '../schemas/records.js'
import { REENCRYPT_USAGE, reencryptCommand } from './privacy/reencrypt-cli.js'
import { REWRAP_USAGE, rewrapCommand } from './privacy/rewrap-cli.js'

const USAGE = `usage: npm run privacy -- <command>
  erase --account ID --user USER_ID [--suppress] [--no-wait]   erase a person from every projection; with --suppress
                                                              their new events are refused (403 USER_SUPPRESSED);
                                                              waits up to 60 s for the projections to be purged
  list --account ID [--json]                                  erasure requests and their receipts, newest first
  ip --account ID --mode full|truncated|none                  what ingest keeps of the client IP (default full)
  retention --account ID --months N                           keep N months of events (1-120); 0 keeps them for ever
                                                              (the default); older events leave ClickHouse and replays
${REENCRYPT_USAGE}
${REWRAP_USAGE}`

/** How long `erase` waits for the receipt: the projections are purged within 60 s (docs/privacy.md). */
const RECEIPT_WAIT_MS = 60_000

const when = (ms: number | null) => (ms === null ? 'pending' : new Date(ms).toISOString())

function receiptLines(e: ErasureRecord): string[] {
  return [
    `erasure ${e.erasure_id}: account ${e.account_id}, user ${e.user_id ? JSON.stringify(e.user_id) : `pseudonym ${e.pseudonym}`}, asked by ${e.requested_by} at ${when(e.requested_at)}${e.suppress ? ', new events refused' : ''}`,
    `  projections purged:        ${when(e.projections_purged_at)}`,
    `  Kafka history unreadable:  ${e.history_unreadable_at === null ? 'not yet (only with PRIVACY_ENCRYPT on: docs/privacy.md, A17)' : when(e.history_unreadable_at)}`,
    `  last copy gone from disk:  ${e.disk_gone_at === null ? 'not yet (only with PRIVACY_ENCRYPT on: docs/privacy.md, A17)' : when(e.disk_gone_at)}`,
  ]
}

type Options = {
  account: string
  user?: string
  mode?: string
  months?: string
  suppress?: boolean
  'no-wait'?: boolean
  json?: boolean
}
type Clients = Awaited<ReturnType<typeof openPrivacy>>

const COMMANDS: Record<string, (o: Options, c: Clients) => Promise<number>> = {
  async erase(o, { privacy }) {
    if (o.user === undefined) throw new AdminError('INVALID', 'erase needs --user')
    const e = await privacy.requestErasure({
      accountId: o.account,
      userId: o.user,
      requestedBy: `cli:${userInfo().username}`,
      suppress: o.suppress === true,
    })
    const done = o['no-wait'] ? e : ((await privacy.purged(o.account, o.user, e.erasure_id, RECEIPT_WAIT_MS)) ?? e)
    console.log(receiptLines(done).join('\n'))
    return o['no-wait'] || done.projections_purged_at !== null ? 0 : 1
  },
  async list(o, { privacy }) {
    const list = privacy.list(o.account)
    if (o.json) console.log(JSON.stringify(list))
    else for (const e of list) console.log(receiptLines(e).join('\n'))
    return 0
  },
  async ip(o, { admin }) {
    const mode = o.mode as IpHandling
    if (!IP_HANDLINGS.includes(mode))
      throw new AdminError('INVALID', `--mode must be one of ${IP_HANDLINGS.join(', ')}`)
    const r = await admin.setIpHandling(o.account, mode)
    console.log(`Account ${r.account_id} keeps the client IP: ${r.ip_handling}.`)
    return 0
  },
  async retention(o, { admin }) {
    if (o.months === undefined || !/^\d+$/.test(o.months)) throw new AdminError('INVALID', 'retention needs --months N')
    const r = await admin.setRetention(o.account, Number(o.months))
    const months = r.retention_months ?? 0
    console.log(
      months === 0
        ? `Account ${r.account_id} keeps its events for ever.`
        : `Account ${r.account_id} keeps ${months} months of events; older ones leave ClickHouse at the projector's next retention run.`,
    )
    return 0
  },
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      user: { type: 'string' },
      mode: { type: 'string' },
      months: { type: 'string' },
      suppress: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      json: { type: 'boolean' },
      from: { type: 'string' },
      to: { type: 'string' },
      chunk: { type: 'string' },
      'pace-ms': { type: 'string' },
      check: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [cmd] = positionals
  if (cmd === 'reencrypt' && !values.help) return reencryptCommand(values)
  if (cmd === 'rewrap' && !values.help) return rewrapCommand(values)
  const run = cmd === undefined ? undefined : COMMANDS[cmd]
  if (!run || values.help) {
    console.log(USAGE)
    return values.help ? 0 : 2
  }
  const account = values.account
  if (!account) throw new AdminError('INVALID', `${cmd} needs --account`)
  const clients = await openPrivacy()
  try {
    if (!clients.admin.accounts.has(account)) throw new AdminError('NOT_FOUND', `no account ${account}`)
    return await run({ ...values, account }, clients)
  } finally {
    await clients.close()
  }
}

runCli(main)
