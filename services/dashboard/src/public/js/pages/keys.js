import { api, errorBox, fmtTime, h, render, state } from '../core.js'

// ---- API keys ----
export async function keysPage() {
  const secretBox = h('div')
  const announce = h('p', { role: 'status', class: 'sr-only', id: 'key-announce' })
  const err = h('div')
  const tbody = h('tbody')
  const refresh = async () => {
    const keys = await api('GET', '/keys')
    tbody.replaceChildren(
      ...(keys.length
        ? keys.map(keyRow)
        : [h('tr', {}, h('td', { colSpan: 7, class: 'muted' }, 'No keys yet. Create one above.'))]),
    )
  }
  /** @param {any} k @param {string} action @param {string} [question] */
  const act = (k, action, question) => async () => {
    if (question && !confirm(question)) return
    err.replaceChildren()
    try {
      await api('POST', `/keys/${encodeURIComponent(k.key_id)}/${action}`)
      await refresh()
    } catch (e) {
      err.replaceChildren(errorBox(e))
    }
  }
  /** @param {any} k a key of GET /api/keys */
  const keyRow = (k) =>
    h(
      'tr',
      { 'data-key-id': k.key_id },
      h('td', {}, k.name),
      h('td', {}, h('span', { class: `badge ${k.type}` }, k.type)),
      h('td', { class: 'mono' }, k.masked),
      h('td', {}, h('span', { class: `badge ${k.status}`, 'data-testid': 'key-status' }, k.status)),
      h('td', {}, fmtTime(k.created_at)),
      h('td', {}, k.last_used_at ? fmtTime(k.last_used_at) : h('span', { class: 'muted' }, 'never')),
      h(
        'td',
        { class: 'row' },
        k.status === 'active'
          ? h(
              'button',
              {
                class: 'secondary',
                onclick: act(
                  k,
                  'deactivate',
                  `Deactivate "${k.name}"? Requests with it will be refused until you reactivate it.`,
                ),
              },
              'Deactivate',
            )
          : null,
        k.status === 'inactive'
          ? h('button', { class: 'secondary', onclick: act(k, 'reactivate') }, 'Reactivate')
          : null,
        k.status !== 'revoked'
          ? h(
              'button',
              {
                class: 'danger',
                'data-action': 'revoke',
                onclick: act(
                  k,
                  'revoke',
                  `Revoke "${k.name}" for good? Requests with it will be refused; this cannot be undone.`,
                ),
              },
              'Revoke',
            )
          : null,
      ),
    )
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault()
        const fd = new FormData(form)
        err.replaceChildren()
        try {
          const k = await api('POST', '/keys', { name: fd.get('name'), type: fd.get('type') })
          form.reset()
          const code = h('code', { id: 'new-key-secret' }, k.secret)
          const heading = h(
            'h2',
            { tabIndex: -1, id: 'new-key-heading' },
            `Your new ${k.type} key "${k.name}". Copy it now: it is shown once and never again.`,
          )
          const ingestUrl = state.me?.ingest_url || location.origin.replace(/:\d+$/, ':8080')
          secretBox.replaceChildren(
            h(
              'div',
              { class: 'panel secret' },
              heading,
              h('p', {}, code),
              h('p', { class: 'muted' }, 'Send a first event with it, then watch it arrive on the Live stream page:'),
              h(
                'pre',
                {},
                `curl -s -X POST ${state.me?.ingest_url || location.origin.replace(/:\d+$/, ':8080')}/v1/event \\\n  -H 'Authorization: Bearer ${k.secret}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"event":"signup_completed","user":{"id":"user_1"}}'`,
              ),
              // Ready-to-paste SDK snippets (sdk/README.md) for the new key.
              h('p', { class: 'muted' }, 'Or with the SDK (sdk/ in the repository) in Node:'),
              h(
                'pre',
                { id: 'new-key-node-snippet' },
                `import { TrackingClient, closeOnSignals } from '@event-tracking/sdk'\n\nconst client = new TrackingClient({ apiKey: '${k.secret}', baseUrl: '${ingestUrl}' })\ncloseOnSignals(client) // flush what is queued on SIGTERM/SIGINT\nclient.track('signup_completed', { plan: 'pro' }, { user: 'user_1' })\nawait client.shutdown() // send what is queued, then let the process exit`,
              ),
              h('p', { class: 'muted' }, 'In a browser page (anyone who loads the page can read the key):'),
              h(
                'pre',
                { id: 'new-key-browser-snippet' },
                `<script type="module">\n  import { TrackingClient } from '/sdk/index.js' // sdk/dist, served by your site\n  const client = new TrackingClient({ apiKey: '${k.secret}', baseUrl: '${ingestUrl}' })\n  client.identify('user_1', { plan: 'pro' })\n  client.track('page_viewed', { path: location.pathname })\n</script>`,
              ),
              h(
                'div',
                { class: 'row' },
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: async (/** @type {MouseEvent & { target: HTMLElement }} */ ev) => {
                      try {
                        await navigator.clipboard.writeText(k.secret)
                        ev.target.textContent = 'Copied'
                      } catch {
                        getSelection()?.selectAllChildren(code)
                        ev.target.textContent = 'Selected: press Ctrl+C'
                      }
                    },
                  },
                  'Copy',
                ),
                h(
                  'button',
                  { type: 'button', class: 'secondary', onclick: () => secretBox.replaceChildren() },
                  'I have stored it',
                ),
              ),
            ),
          )
          // Screen readers hear that a secret appeared (the status region) and land on it (focus).
          announce.textContent = `Key "${k.name}" created. Its secret is shown below, once: copy it now.`
          heading.focus()
          await refresh()
        } catch (e2) {
          err.replaceChildren(errorBox(e2))
        }
      },
    },
    h(
      'label',
      {},
      'Name',
      h('input', { name: 'name', required: true, maxLength: 100, placeholder: 'production server' }),
    ),
    h(
      'label',
      {},
      'Type',
      h('select', { name: 'type' }, h('option', { value: 'live' }, 'Live'), h('option', { value: 'test' }, 'Test')),
    ),
    h('button', { type: 'submit', id: 'create-key' }, 'Create key'),
  )
  render(
    h('h1', {}, 'API keys'),
    h(
      'div',
      { class: 'panel' },
      form,
      h(
        'p',
        { class: 'muted' },
        'Live keys count toward your monthly event limit; test keys never do. Keys work at the ingest within about 2 seconds.',
      ),
    ),
    announce,
    secretBox,
    err,
    h(
      'div',
      { class: 'panel' },
      h(
        'table',
        { id: 'keys-table', class: 'cards' },
        h(
          'thead',
          {},
          h('tr', {}, ...['Name', 'Type', 'Key', 'Status', 'Created', 'Last used', ''].map((t) => h('th', {}, t))),
        ),
        tbody,
      ),
    ),
  )
  await refresh()
}
