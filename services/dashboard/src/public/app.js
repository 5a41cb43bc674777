// The dashboard's router: plain ES modules, no build step, type-checked by tsc from JSDoc (U10).
//
// How to add a page:
// 1. Write js/pages/<name>.js exporting one async function that draws the page with render() (js/core.js).
// 2. Import it below and add one line to ROUTES: `<name>: { title: 'Title', open: <fn> }`.
// 3. Add one link to the nav of index.html: `<a href="#/<name>" data-page="<name>">Title</a>`.
// 4. Filters go in the address with hashRoute().params and setHashParams(); API calls with api().
// 5. Add a browser test in test/e2e/ (axe-core at desktop and 390 px); `npm run typecheck` checks the types.
import { $, api, errorBox, go, hashRoute, nextRoute, render, setRouter, setTitle, showNav, state } from './js/core.js'
import { closeDetail } from './js/detail.js'
import { accountPage } from './js/pages/account.js'
import { authPage } from './js/pages/auth.js'
import { definitionsPage } from './js/pages/definitions.js'
import { explorerPage } from './js/pages/explorer.js'
import { funnelsPage } from './js/pages/funnels.js'
import { keysPage } from './js/pages/keys.js'
import { livePage } from './js/pages/live.js'
import { personsPage } from './js/pages/persons.js'
import { trendsPage } from './js/pages/trends.js'

import { retentionPage } from './js/pages/retention.js'

import { refusedPage } from './js/pages/refused.js'
import { usagePage } from './js/pages/usage.js'
import { userPage } from './js/pages/users.js'

/**
 * One entry per page of `#/<name>/<arg>`: its title (or a function of the decoded arg), the function
 * that draws it, and `signedOut` for the pages shown without a session.
 * @type {Record<string, { title: string | ((arg: string) => string), open: (arg: string) => unknown, signedOut?: boolean }>}
 */
const ROUTES = {
  signin: { title: 'Sign in', open: () => authPage('signin'), signedOut: true },
  signup: { title: 'Create your account', open: () => authPage('signup'), signedOut: true },
  keys: { title: 'API keys', open: keysPage },
  usage: { title: 'Usage', open: usagePage },
  explorer: { title: 'Explorer', open: explorerPage },
  definitions: { title: 'Definitions', open: definitionsPage },
  persons: { title: 'Persons', open: personsPage },
  trends: { title: 'Trends', open: trendsPage },

  funnels: { title: 'Funnels', open: funnelsPage },
  retention: { title: 'Retention', open: retentionPage },

  refused: { title: 'Refused requests', open: refusedPage },
  users: { title: (arg) => `User ${arg}`, open: userPage },
  live: { title: 'Live stream', open: livePage },
  account: { title: 'Account', open: accountPage },
}

async function route() {
  const current = nextRoute()
  for (const fn of state.cleanup.splice(0)) fn()
  closeDetail()
  const { page, arg } = hashRoute()
  const entry = Object.hasOwn(ROUTES, page) ? ROUTES[page] : undefined
  const decoded = decodeURIComponent(arg || '')
  setTitle(typeof entry?.title === 'function' ? entry.title(decoded) : entry?.title)
  if (!state.me && !entry?.signedOut) {
    try {
      state.me = await api('GET', '/me')
    } catch {
      return go('#/signin')
    }
  }
  showNav()
  if (!entry) return go('#/live')
  try {
    return await entry.open(decoded)
  } catch (err) {
    if (current()) render(errorBox(err))
  }
}

setRouter(route)
window.addEventListener('hashchange', route)
document.addEventListener('DOMContentLoaded', () => {
  $('#signout').addEventListener('click', async () => {
    try {
      await api('POST', '/signout')
    } finally {
      state.me = null
      showNav()
      go('#/signin')
    }
  })
  void route()
})
