// The dashboard's two cookies (U1): the session token (httpOnly) and the CSRF token (read by the
// page), with the same attributes everywhere they are set or cleared.
//
// Secure (COOKIE_SECURE, on by default when the dashboard is served over https) they carry the
// `__Host-` prefix: a browser then keeps them only with Secure, Path=/ and no Domain, so neither a
// sibling subdomain nor a plain-http page on the same host can set or overwrite them. Browsers refuse
// `__Host-` (and often Secure) cookies from a plain-http page, so a dashboard opened over plain http
// (a local trial) uses the unprefixed names without Secure.
import type Koa from 'koa'

export interface CookieNames {
  session: string
  csrf: string
}

export const cookieNamesFor = (secure: boolean): CookieNames =>
  secure ? { session: '__Host-dash_session', csrf: '__Host-dash_csrf' } : { session: 'dash_session', csrf: 'dash_csrf' }

/** Sets (or, with maxAge 0, clears) one of the dashboard's cookies. */
export function setDashboardCookie(
  ctx: Koa.Context | Koa.ParameterizedContext<any>,
  secure: boolean,
  name: string,
  value: string,
  o: { httpOnly: boolean; maxAge?: number },
): void {
  // TLS usually ends at a proxy in front (app.proxy is off: X-Forwarded-Proto is not believed), so
  // the connection looks plain here; with COOKIE_SECURE the operator says the browser sees https.
  if (secure) ctx.cookies.secure = true
  ctx.cookies.set(name, value, {
    httpOnly: o.httpOnly,
    sameSite: 'strict',
    secure,
    path: '/',
    overwrite: true,
    ...(o.maxAge !== undefined ? { maxAge: o.maxAge } : {}),
  })
}
