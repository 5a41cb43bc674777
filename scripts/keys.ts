// npm run keys -- <command>: manage accounts and API keys through the accounts topic (A1, H1).
//   create --account ACME --name "prod server" --type live [--plan launch]   prints the secret once
//   list [--account ACME]
//   deactivate KEY_ID | reactivate KEY_ID | revoke KEY_ID
//   account ACME --plan orbit                                                 create or change plan
//   accounts
import { parseArgs } from 'node:util'
import { openAdmin } from './admin-context.js'
import { AdminError } from '../services/shared/src/accounts/accounts-admin.js'

const USAGE = `usage: npm run keys -- <command>
  create --account ID --name NAME --type live|test [--plan PLAN]   create a key (and the account if new); prints the secret once
  list [--account ID]                                              keys with masked prefix, type and status
  deactivate KEY_ID | reactivate KEY_ID | revoke KEY_ID             change a key's status (effective at ingest within 2 s)
  account ID --plan PLAN                                           create an account or change its plan
  accounts                                                         accounts and their plans`

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      type: { type: 'string' },
      plan: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [cmd, arg] = positionals
  if (!cmd || values.help) {
    console.log(USAGE)
    return cmd ? 0 : 2
  }
  const { admin, close } = await openAdmin()
  try {
    switch (cmd) {
      case 'create': {
        const account = values.account
        const type = values.type ?? 'live'
        if (!account || !values.name) throw new AdminError('INVALID', 'create needs --account and --name')
        if (type !== 'live' && type !== 'test') throw new AdminError('INVALID', '--type must be live or test')
        if (!admin.accounts.has(account)) await admin.createAccount({ accountId: account, plan: values.plan })
        const { secret, record } = await admin.createKey({ accountId: account, name: values.name, type })
        if (values.json) console.log(JSON.stringify({ key: secret, key_id: record.key_id, account_id: account, type }))
        else {
          console.log(`Created ${type} key ${record.key_id} "${record.name}" for account ${account}.`)
          console.log(`Secret (shown once, store it now):\n\n  ${secret}\n`)
        }
        return 0
      }
      case 'list': {
        const rows = [...admin.keys.values()].filter((k) => !values.account || k.account_id === values.account)
        if (values.json) console.log(JSON.stringify(rows))
        else {
          console.log(
            [
              'KEY_ID'.padEnd(26),
              'ACCOUNT'.padEnd(16),
              'TYPE'.padEnd(5),
              'STATUS'.padEnd(9),
              'MASKED'.padEnd(22),
              'NAME',
            ].join(' '),
          )
          for (const k of rows)
            console.log(
              [
                k.key_id.padEnd(26),
                k.account_id.padEnd(16),
                k.type.padEnd(5),
                k.status.padEnd(9),
                k.masked.padEnd(22),
                k.name,
              ].join(' '),
            )
        }
        return 0
      }
      case 'deactivate':
      case 'reactivate':
      case 'revoke': {
        if (!arg) throw new AdminError('INVALID', `${cmd} needs a KEY_ID (see: npm run keys -- list)`)
        const status = cmd === 'deactivate' ? 'inactive' : cmd === 'reactivate' ? 'active' : 'revoked'
        const r = await admin.setKeyStatus(arg, status)
        console.log(`Key ${r.key_id} is now ${r.status}.`)
        return 0
      }
      case 'account': {
        if (!arg || !values.plan) throw new AdminError('INVALID', 'account needs an ID and --plan')
        const r = admin.accounts.has(arg)
          ? await admin.setPlan(arg, values.plan)
          : await admin.createAccount({ accountId: arg, plan: values.plan })
        console.log(`Account ${r.account_id} is on plan ${r.plan}.`)
        return 0
      }
      case 'accounts': {
        for (const a of admin.accounts.values())
          console.log(`${a.account_id.padEnd(20)} ${a.plan.padEnd(10)} ${a.status}`)
        return 0
      }
      default:
        console.error(`unknown command ${cmd}\n${USAGE}`)
        return 2
    }
  } finally {
    await close()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof AdminError) console.error(`error: ${err.message}`)
    else console.error(`error: ${err?.message ?? err}`)
    process.exit(err instanceof AdminError ? 2 : 1)
  },
)
