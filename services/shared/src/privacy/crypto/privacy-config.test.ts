import t from 'tap'
import { readEnv, v, ConfigError } from '../../env.js'
import { accountSecretOf, pseudonymOf, DEV_MASTER_KEY } from './index.js'
import { masterKeyWarning, privacyConfig, privacySpec } from './privacy-config.js'

const load = (env: Record<string, string>) =>
  privacyConfig(readEnv({ ...privacySpec, REQUIRE_SECRETS: v.bool(false) }, env))

t.test('defaults: the public dev master key, sealing on (A29)', async (t) => {
  const c = load({})
  t.same(c.masterKey, Buffer.from(DEV_MASTER_KEY, 'base64'))
  t.equal(c.encrypt, true)
  t.equal(load({ PRIVACY_ENCRYPT: 'false' }).encrypt, false, 'an operator can still turn it off')
  t.equal(c.keyCacheEntries, 100_000)
})

t.test('a bad master key is refused by name, without its value', async (t) => {
  const bad = 'c2hvcnQ='
  const err = t.throws(() => load({ PRIVACY_MASTER_KEY: bad })) as unknown as ConfigError
  t.equal(err.variable, 'PRIVACY_MASTER_KEY')
  t.notMatch(err.message, bad)
  t.throws(
    () => load({ REQUIRE_SECRETS: 'true' }),
    new ConfigError('PRIVACY_MASTER_KEY', 'is required when REQUIRE_SECRETS is on'),
  )
  t.same(load({ PRIVACY_MASTER_KEY: 'ab'.repeat(32), PRIVACY_ENCRYPT: 'true' }).masterKey, Buffer.alloc(32, 0xab))
})

t.test('account secrets are derived from the master key: per account, and they change with the master', async (t) => {
  const m1 = Buffer.alloc(32, 1)
  const m2 = Buffer.alloc(32, 2)
  t.equal(accountSecretOf(m1, 'acme').length, 32)
  t.same(accountSecretOf(m1, 'acme'), accountSecretOf(m1, 'acme'), 'deterministic: every instance agrees')
  t.notSame(accountSecretOf(m1, 'acme'), accountSecretOf(m1, 'acme2'))
  t.notSame(accountSecretOf(m1, 'acme'), accountSecretOf(m2, 'acme'))
  t.not(
    pseudonymOf(accountSecretOf(m1, 'a'), 'u'),
    pseudonymOf(accountSecretOf(m1, 'b'), 'u'),
    'one user id, two accounts',
  )
})

t.test(
  'with sealing on, the public development key is named at start; a key of its own or sealing off is not',
  async (t) => {
    t.match(masterKeyWarning(load({})), /PRIVACY_MASTER_KEY is not set.*public development key/)
    t.equal(masterKeyWarning(load({ PRIVACY_MASTER_KEY: 'ab'.repeat(32) })), undefined)
    t.equal(masterKeyWarning(load({ PRIVACY_ENCRYPT: 'false' })), undefined)
    t.notMatch(masterKeyWarning(load({})) ?? '', DEV_MASTER_KEY, 'the key itself is not printed')
  },
)

t.test('A35: old master keys open, the pseudonym key stays: parsed once, refused by name without values', async (t) => {
  const m1 = 'a1'.repeat(32)
  const m2 = 'b2'.repeat(32)
  const plain = load({ PRIVACY_MASTER_KEY: m1 })
  t.same(plain.oldMasterKeys, [], 'no rotation: no old key')
  t.same(plain.pseudonymKey, plain.masterKey, 'no rotation: pseudonyms come from the master key, as before A35')

  const rotating = load({
    PRIVACY_MASTER_KEY: m2,
    PRIVACY_OLD_MASTER_KEY: `${m1}, ${DEV_MASTER_KEY}`,
    PRIVACY_PSEUDONYM_KEY: m1,
  })
  t.same(rotating.masterKey, Buffer.from(m2, 'hex'))
  t.same(rotating.oldMasterKeys, [Buffer.from(m1, 'hex'), Buffer.from(DEV_MASTER_KEY, 'base64')], 'a list, in order')
  t.same(rotating.pseudonymKey, Buffer.from(m1, 'hex'), 'the pseudonyms of before the rotation')

  t.throws(
    () => load({ PRIVACY_MASTER_KEY: m2, PRIVACY_OLD_MASTER_KEY: m1 }),
    { variable: 'PRIVACY_PSEUDONYM_KEY', message: /required while PRIVACY_OLD_MASTER_KEY is set/ },
    'a rotation without the pseudonym key would give every person a second pseudonym',
  )
  t.throws(
    () => load({ PRIVACY_MASTER_KEY: m2, PRIVACY_OLD_MASTER_KEY: m2, PRIVACY_PSEUDONYM_KEY: m1 }),
    { variable: 'PRIVACY_OLD_MASTER_KEY', message: /must not hold PRIVACY_MASTER_KEY/ },
    'the current key is not an old one',
  )
  const bad = `${m1},c2hvcnQ=`
  const err = t.throws(() =>
    load({ PRIVACY_MASTER_KEY: m2, PRIVACY_OLD_MASTER_KEY: bad, PRIVACY_PSEUDONYM_KEY: m1 }),
  ) as unknown as ConfigError
  t.equal(err.variable, 'PRIVACY_OLD_MASTER_KEY')
  t.notMatch(err.message, m1, 'no value in the message')
  t.throws(() => load({ REQUIRE_SECRETS: 'true', PRIVACY_MASTER_KEY: m2, PRIVACY_PSEUDONYM_KEY: DEV_MASTER_KEY }), {
    variable: 'PRIVACY_PSEUDONYM_KEY',
    message: /development default/,
  })
  t.equal(
    load({
      REQUIRE_SECRETS: 'true',
      PRIVACY_MASTER_KEY: m2,
      PRIVACY_OLD_MASTER_KEY: DEV_MASTER_KEY,
      PRIVACY_PSEUDONYM_KEY: m1,
    }).oldMasterKeys.length,
    1,
    'rotating away from the development key is allowed with REQUIRE_SECRETS on',
  )
  t.throws(
    () => load({ REQUIRE_SECRETS: 'true', PRIVACY_MASTER_KEY: Buffer.from(DEV_MASTER_KEY, 'base64').toString('hex') }),
    { variable: 'PRIVACY_MASTER_KEY', message: /development default/ },
    'the development key is refused in hex too',
  )
})
