import { api, errorBox, fmtTime, h, stillCurrent } from './core.js'

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
  return h(
    'div',
    { class: 'panel' },
    h('h2', {}, 'Privacy'),
    h('label', {}, suppress, ' refuse new events for this user id'),
    ' ',
    btn,
    receipt,
  )
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

/** @param {any} e an erasure of GET /api/erasures */
const receiptTable = (e) =>
  h(
    'table',
    { id: 'erasure-steps' },
    h(
      'tbody',
      {},
      h('tr', {}, h('th', {}, 'Requested'), h('td', {}, `${fmtTime(e.requested_at)} by ${e.requested_by}`)),
      h(
        'tr',
        { 'data-step': 'projections' },
        h('th', {}, 'Projections purged'),
        h('td', {}, e.steps.projections_purged_at ? fmtTime(e.steps.projections_purged_at) : 'in progress'),
      ),
      h(
        'tr',
        { 'data-step': 'history' },
        h('th', {}, 'Kafka history unreadable'),
        h('td', {}, e.steps.history_unreadable_at ? fmtTime(e.steps.history_unreadable_at) : 'not yet'),
      ),
      h(
        'tr',
        { 'data-step': 'disk' },
        h('th', {}, 'Last copy gone from disk'),
        h('td', {}, e.steps.disk_gone_at ? fmtTime(e.steps.disk_gone_at) : 'not yet'),
      ),
    ),
  )
