import { test } from 'tap'
import { isWellFormed } from './well-formed.js'

test('a string is well-formed unless it holds an unpaired surrogate', async (t) => {
  t.ok(isWellFormed(''))
  t.ok(isWellFormed('plain ascii'))
  t.ok(isWellFormed('emoji \uD83D\uDE00 pair'), 'a high surrogate followed by a low one is a pair')
  t.notOk(isWellFormed('\uD800'), 'a lone high surrogate')
  t.notOk(isWellFormed('\uDC00'), 'a lone low surrogate')
  t.notOk(isWellFormed('a\uD83Db'), 'a high surrogate followed by a non-surrogate')
  t.notOk(isWellFormed('\uDE00\uD83D'), 'a low surrogate before a high one is not a pair')
  t.notOk(isWellFormed('ok \uD83D\uDE00 \uD83D'), 'a pair then a lone high surrogate at the end')
})
