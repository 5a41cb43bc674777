import t from 'tap'
import { passwordProblem } from './password-rules.js'

t.test('refuses short, all-whitespace and common passwords; says why', async (t) => {
  t.match(passwordProblem('short'), /at least 8 characters/)
  t.match(passwordProblem('        '), /only spaces/)
  t.match(passwordProblem(' \t \n    '), /only spaces/)
  for (const p of ['12345678', 'Password1', 'qwertyuiop', ' 12345678 ']) t.match(passwordProblem(p), /most common/, p)
})

t.test('accepts a long enough uncommon password, spaces inside included', async (t) => {
  for (const p of ['a long enough password', 'correct horse battery', 'x7#kq!2m'])
    t.equal(passwordProblem(p), undefined, p)
})
