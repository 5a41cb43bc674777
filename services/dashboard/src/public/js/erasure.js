import { api, errorBox, fmtNum, fmtTime, h, panel, stillCurrent } from './core.js'

// ---- erasure of one user (A12, docs/privacy.md): a confirmation saying what happens, then the receipt ----
/** @param {string} userId */
export function erasePanel(userId) {
  const receipt = h('div', { id: 'erasure-receipt' })
  const suppress = h('input', { type: 'checkbox', id: 'erase-suppress' })
  const btn = h(
    'button',
    {
      id: 'erase-user',
      class: 'danger',
      onclick: async () => {
        const question =
          `Erase user ${userId}? Their events, identifies and profile are deleted from every table within a minute, and replays will not bring them back; monthly usage counts stay.` +
          (suppress.checked
            ? ' New events for this user id will be refused.'
            : ' New events for this user id will be stored again.') +
          ' The Kafka history is made unreadable only with sealing on (PRIVACY_ENCRYPT): the receipt says when (docs/privacy.md).'
        if (!confirm(question)) return
        btn.disabled = true
        try {
          const e = await api('POST', '/erasures', { user_id: userId, suppress: suppress.checked })
          await watchReceipt(e.erasure_id, receipt)
        } catch (err) {
          receipt.replaceChildren(errorBox(err))
          btn.disabled = false
        }
      },
    },
    'Erase this user',
  )
  return panel('Privacy', h('label', {}, suppress, ' refuse new events for this user id'), ' ', btn, receipt)
}

/** Shows the receipt step by step until the last copy is gone from disk (or the page is left): every
 *  second until the projections are purged, then every 5 s (the last steps take minutes to a day, A17). */
/** @param {string} erasureId @param {HTMLElement} box */
async function watchReceipt(erasureId, box) {
  const current = stillCurrent()
  while (current()) {
    const e = await api('GET', `/erasures/${encodeURIComponent(erasureId)}`)
    if (e) box.replaceChildren(receiptTable(e))
    if (e?.steps.disk_gone_at) return
    await new Promise((r) => setTimeout(r, e?.steps.projections_purged_at ? 5000 : 1000))
  }
}

/** The receipt's steps, in order, as both the receipt and the account's list name them (docs/privacy.md). */
const STEPS = [
  { key: 'projections', field: 'projections_purged_at', label: 'Projections purged', pending: 'in progress' },
  { key: 'history', field: 'history_unreadable_at', label: 'Kafka history unreadable', pending: 'not yet' },
  { key: 'disk', field: 'disk_gone_at', label: 'Last copy gone from disk', pending: 'not yet' },
]

/** @param {any} e an erasure of GET /api/erasures @param {(typeof STEPS)[number]} step */
const stepText = (e, step) => (e.steps[step.field] ? fmtTime(e.steps[step.field]) : step.pending)

/** @param {any} e an erasure of GET /api/erasures */
const receiptTable = (e) =>
  h(
    'table',
    { id: 'erasure-steps' },
    h(
      'tbody',
      {},
      h('tr', {}, h('th', {}, 'Requested'), h('td', {}, `${fmtTime(e.requested_at)} by ${e.requested_by}`)),
      ...STEPS.map((step) =>
        h('tr', { 'data-step': step.key }, h('th', {}, step.label), h('td', {}, stepText(e, step))),
      ),
    ),
  )

/** The rows the account's list shows: the newest requests. */
const LISTED = 100

/** The account page's list of erasure requests, newest first, each with how far it has gone (A12, A17). */
export function erasuresPanel() {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'))
  api('GET', '/erasures').then(
    (/** @type {any[]} */ all) => {
      const newest = [...all].sort((a, b) => Date.parse(b.requested_at) - Date.parse(a.requested_at)).slice(0, LISTED)
      if (newest.length === 0) return body.replaceChildren(h('p', { id: 'erasures-none' }, 'No erasure requested yet.'))
      body.replaceChildren(
        h(
          'table',
          { id: 'erasures' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'User'),
              h('th', { scope: 'col' }, 'Requested'),
              ...STEPS.map((step) => h('th', { scope: 'col' }, step.label)),
            ),
          ),
          h(
            'tbody',
            {},
            ...newest.map((e) =>
              h(
                'tr',
                { 'data-erasure': e.erasure_id },
                // A22: with sealing on, a request made elsewhere names the person by pseudonym only.
                h('td', {}, e.user_id ?? `pseudonym ${String(e.pseudonym ?? '').slice(0, 12)}…`),
                h('td', {}, `${fmtTime(e.requested_at)} by ${e.requested_by}`),
                ...STEPS.map((step) => h('td', { 'data-step': step.key }, stepText(e, step))),
              ),
            ),
          ),
        ),
        ...(all.length > LISTED
          ? [h('p', { class: 'muted' }, `The ${LISTED} newest of ${fmtNum(all.length)} requests.`)]
          : []),
      )
    },
    (err) => body.replaceChildren(errorBox(err)),
  )
  return panel(
    'Erasures',
    h(
      'p',
      { class: 'muted' },
      'Requests to erase a user (from the user page or npm run privacy), newest first, and when each step finished.',
    ),
    body,
  )
}
