// A small cookie-keeping HTTP client of the dashboard (one browser): the session and CSRF cookies,
// the CSRF header and Origin on state-changing requests. Used by the stack tier
// (dashboard-harness.ts) and the in-process tier (in-process-dashboard.ts) alike.
import { randomBytes } from 'node:crypto'

export interface ApiResponse {
  status: number
  headers: Headers
  body: any
}

export class DashboardClient {
  readonly cookies = new Map<string, string>()
  constructor(
    readonly baseUrl: string,
    readonly ip?: string,
  ) {}

  private store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq)
      const value = pair!.slice(eq + 1)
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  get csrf(): string | undefined {
    const v = this.cookies.get('__Host-dash_csrf') ?? this.cookies.get('dash_csrf')
    return v === undefined ? undefined : decodeURIComponent(v)
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    o: { csrf?: string | null; origin?: string | null; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse> {
    // A first GET gives the CSRF cookie, as loading the page does in a browser.
    if (method !== 'GET' && this.csrf === undefined && o.csrf === undefined) await this.request('GET', '/api/me')
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(this.ip ? { 'x-forwarded-for': this.ip } : {}),
      ...o.headers,
    }
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (method !== 'GET') {
      const token = o.csrf === undefined ? this.csrf : o.csrf
      if (token) headers['x-csrf-token'] = token
      const origin = o.origin === undefined ? this.baseUrl : o.origin
      if (origin) headers.origin = origin
    }
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    this.store(res)
    const text = await res.text()
    let parsed: any = text
    try {
      parsed = JSON.parse(text)
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed }
  }

  get = (path: string) => this.request('GET', path)
  post = (path: string, body?: unknown, o?: Parameters<DashboardClient['request']>[3]) =>
    this.request('POST', path, body ?? {}, o)

  async signUp(
    email = `user-${randomBytes(4).toString('hex')}@example.com`,
    password = 'correct horse battery',
  ): Promise<{ email: string; password: string; accountId: string }> {
    const r = await this.post('/api/signup', { email, password })
    if (r.status !== 201) throw new Error(`sign-up failed: ${r.status} ${JSON.stringify(r.body)}`)
    return { email, password, accountId: r.body.data.account_id }
  }

  /** Opens the live stream and collects parsed items until `close()`. */
  async openLive(query = ''): Promise<{ status: number; items: any[]; close: () => void }> {
    const abort = new AbortController()
    const res = await fetch(`${this.baseUrl}/api/live${query}`, {
      headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), accept: 'text/event-stream' },
      signal: abort.signal,
    })
    const items: any[] = []
    if (res.status === 200 && res.body) {
      void (async () => {
        const decoder = new TextDecoder()
        let buf = ''
        try {
          for await (const chunk of res.body as any as AsyncIterable<Uint8Array>) {
            buf += decoder.decode(chunk, { stream: true })
            let i: number
            while ((i = buf.indexOf('\n\n')) >= 0) {
              const block = buf.slice(0, i)
              buf = buf.slice(i + 2)
              const data = block
                .split('\n')
                .filter((l) => l.startsWith('data: '))
                .map((l) => l.slice(6))
                .join('\n')
              if (data) items.push(JSON.parse(data))
            }
          }
        } catch {
          /* aborted */
        }
      })()
    } else await res.text().catch(() => undefined)
    return { status: res.status, items, close: () => abort.abort() }
  }
}
