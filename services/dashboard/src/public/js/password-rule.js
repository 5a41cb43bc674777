import { h } from './core.js'

export const passwordRule = () =>
  h(
    'p',
    { class: 'muted hint', id: 'password-rule' },
    'At least 8 characters, not only spaces, and not a common password such as 12345678.',
  )
