import { $, api, errorBox, go, h, panel, render, showNav, state } from '../core.js'
import { passwordRule } from '../password-rule.js'
import { erasuresPanel } from '../erasure.js'

// ---- account: password change and sign out everywhere (sessions end on the server) ----
export function accountPage() {
  const pwMsg = h('div')
  const pwForm = h(
    'form',
    {
      id: 'password-form',
      class: 'row',
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        const fd = new FormData(pwForm)
        pwMsg.replaceChildren()
        if (fd.get('new_password') !== fd.get('confirm_password'))
          return pwMsg.replaceChildren(errorBox(new Error('The new passwords differ')))
        const btn = /** @type {HTMLButtonElement} */ ($('button', pwForm))
        btn.disabled = true
        try {
          await api('POST', '/password', {
            current_password: fd.get('current_password'),
            new_password: fd.get('new_password'),
          })
          pwForm.reset()
          pwMsg.replaceChildren(
            h('p', { id: 'password-changed', role: 'status' }, 'Password changed. Every other session is signed out.'),
          )
        } catch (e2) {
          pwMsg.replaceChildren(errorBox(e2))
        } finally {
          btn.disabled = false
        }
      },
    },
    h(
      'label',
      {},
      'Current password',
      h('input', { name: 'current_password', type: 'password', required: true, autocomplete: 'current-password' }),
    ),
    h(
      'label',
      {},
      'New password',
      h('input', {
        name: 'new_password',
        type: 'password',
        required: true,
        minLength: 8,
        autocomplete: 'new-password',
        'aria-describedby': 'password-rule',
      }),
    ),
    h(
      'label',
      {},
      'New password again',
      h('input', {
        name: 'confirm_password',
        type: 'password',
        required: true,
        minLength: 8,
        autocomplete: 'new-password',
      }),
    ),
    h('button', { type: 'submit', id: 'change-password' }, 'Change password'),
    passwordRule(),
  )
  const outMsg = h('div')
  const everywhere = h(
    'button',
    {
      type: 'button',
      id: 'signout-everywhere',
      class: 'danger',
      onclick: async () => {
        if (!confirm('Sign out of the dashboard on every device, this one included?')) return
        outMsg.replaceChildren()
        try {
          await api('POST', '/signout-everywhere')
          state.me = null
          showNav()
          go('#/signin')
        } catch (e2) {
          outMsg.replaceChildren(errorBox(e2))
        }
      },
    },
    'Sign out everywhere',
  )
  render(
    h('h1', {}, 'Account'),
    panel(
      'Change password',
      h('p', { class: 'muted' }, 'Changing the password signs out every other browser and device.'),
      pwForm,
      pwMsg,
    ),
    panel(
      'Sessions',
      h(
        'p',
        { class: 'muted' },
        'Lost a device or signed in somewhere you should not have? End every session of this account.',
      ),
      everywhere,
      outMsg,
    ),
    retentionPanel(),
    erasuresPanel(),
  )
}

// H60: how many months of events the account keeps; older ones leave the tables and replays.
function retentionPanel() {
  const msg = h('div')
  const input = /** @type {HTMLInputElement} */ (
    h('input', { id: 'retention-months', name: 'months', type: 'number', min: 0, max: 120, required: true })
  )
  const form = h(
    'form',
    {
      id: 'retention-form',
      class: 'row',
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        msg.replaceChildren()
        try {
          const r = await api('POST', '/retention', { months: Number(input.value) })
          const kept = r.months === 0 ? 'Events are kept for ever.' : `Events are kept for ${r.months} months.`
          msg.replaceChildren(h('p', { id: 'retention-saved', role: 'status' }, kept))
        } catch (e2) {
          msg.replaceChildren(errorBox(e2))
        }
      },
    },
    h('label', {}, 'Months of events kept (0: for ever)', input),
    h('button', { type: 'submit', id: 'save-retention' }, 'Save'),
  )
  api('GET', '/retention').then(
    (r) => {
      input.value = String(r.months)
    },
    (e2) => msg.replaceChildren(errorBox(e2)),
  )
  return panel(
    'Data retention',
    h(
      'p',
      { class: 'muted' },
      'Events older than this are deleted from the dashboard within the hour and are not brought back by a replay. Monthly usage counts stay.',
    ),
    form,
    msg,
  )
}
