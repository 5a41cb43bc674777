// The rule a new password must meet (sign-up and password change, decision U6): at least
// PASSWORD_MIN_LENGTH characters, not only whitespace, and not one of the passwords that
// credential-stuffing lists try first. Length alone let `12345678` and eight spaces through.
import { PASSWORD_MIN_LENGTH } from './password.js'

/** The most common passwords of eight characters or more in public breach lists, lower case. */
const COMMON = new Set([
  '12345678',
  '123456789',
  '1234567890',
  '12345678910',
  '123123123',
  '12341234',
  '11111111',
  '00000000',
  '88888888',
  '66666666',
  '99999999',
  '87654321',
  '987654321',
  '11223344',
  '12344321',
  '147258369',
  '123456789a',
  '1234567a',
  'abc12345',
  'abcd1234',
  'password',
  'password1',
  'password12',
  'password123',
  'passw0rd',
  'p@ssw0rd',
  'qwertyui',
  'qwertyuiop',
  'qwerty123',
  'qwerty12',
  '1q2w3e4r',
  '1q2w3e4r5t',
  '1qaz2wsx',
  'zaq12wsx',
  'q1w2e3r4',
  '1234qwer',
  'qwe12345',
  '123qweasd',
  'asdfghjk',
  'asdfghjkl',
  'aaaaaaaa',
  'iloveyou',
  'iloveyou1',
  'sunshine',
  'princess',
  'football',
  'baseball',
  'welcome1',
  'welcome123',
  'trustno1',
  'superman',
  'starwars',
  'letmein1',
  'whatever',
  'computer',
  'michelle',
  'jennifer',
  'charlie1',
  'master12',
  'dragon12',
  'monkey12',
  'changeme',
  'administrator',
  'admin123',
])

/** Why `password` is refused, as a sentence for the user; undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must have at least ${PASSWORD_MIN_LENGTH} characters`
  if (password.trim() === '') return 'must not be only spaces'
  if (COMMON.has(password.trim().toLowerCase())) return 'is one of the most common passwords; choose another'
  return undefined
}
