import { test } from 'tap'
import { isWellFormed } from './well-formed.js'

test('a string is well-formed unless it holds an unpaired surrogate', async (t) => {
  const cases: Array<[string, boolean, string]> = [
    ['', true, 'empty'],
    ['plain ascii', true, 'ASCII'],
    ['emoji \uD83D\uDE00 pair', true, 'a high surrogate followed by a low one is a pair'],
    ['\uD800', false, 'a lone high surrogate'],
    ['\uDC00', false, 'a lone low surrogate'],
    ['a\uD83Db', false, 'a high surrogate followed by a non-surrogate'],
    ['\uDE00\uD83D', false, 'a low surrogate before a high one is not a pair'],
    ['ok \uD83D\uDE00 \uD83D', false, 'a pair then a lone high surrogate at the end'],
  ]
  for (const [s, expected, label] of cases) t.equal(isWellFormed(s), expected, label)
})
