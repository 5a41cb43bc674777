import { $, api, errorBox, go, h, render, state } from '../core.js'
import { passwordRule } from '../password-rule.js'

// ---- sign-in and sign-up ----
// The server's rule (services/dashboard/src/auth/password-rules.ts), said where the password is typed.
/** @param {'signin' | 'signup'} mode */
export function authPage(mode) {
  const signup = mode === 'signup'
  const err = h('div')
  const form = h(
    'form',
    {
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        const fd = new FormData(form)
        err.replaceChildren()
        const btn = /** @type {HTMLButtonElement} */ ($('button', form))
        btn.disabled = true
        try {
          state.me = await api('POST', signup ? '/signup' : '/signin', {
            email: fd.get('email'),
            password: fd.get('password'),
            ...(signup ? { name: fd.get('name') || undefined } : {}),
          })
          go(signup ? '#/keys' : '#/live')
        } catch (e2) {
          err.replaceChildren(errorBox(e2))
        } finally {
          btn.disabled = false
        }
      },
    },
    signup
      ? h('label', {}, 'Company or project name (optional)', h('input', { name: 'name', autocomplete: 'organization' }))
      : null,
    h('label', {}, 'Email', h('input', { name: 'email', type: 'email', required: true, autocomplete: 'email' })),
    h(
      'label',
      {},
      'Password',
      h('input', {
        name: 'password',
        type: 'password',
        required: true,
        minLength: signup ? 8 : undefined,
        autocomplete: signup ? 'new-password' : 'current-password',
        'aria-describedby': signup ? 'password-rule' : undefined,
      }),
    ),
    signup ? passwordRule() : null,
    h(
      'button',
      { type: 'submit', id: signup ? 'signup-submit' : 'signin-submit' },
      signup ? 'Create account' : 'Sign in',
    ),
  )
  const notice = state.notice
  state.notice = ''
  render(
    h(
      'div',
      { class: 'auth panel' },
      h('h1', {}, signup ? 'Create your account' : 'Sign in'),
      notice && !signup ? h('p', { class: 'notice', role: 'status', id: 'signin-notice' }, notice) : null,
      form,
      err,
      h(
        'p',
        { class: 'muted' },
        signup ? 'Already have an account? ' : 'New here? ',
        h('a', { href: signup ? '#/signin' : '#/signup' }, signup ? 'Sign in' : 'Create an account'),
      ),
    ),
  )
}
