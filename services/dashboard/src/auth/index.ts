export { hashPassword, verifyPassword, dummyHash, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH } from './password.js'
export { passwordProblem } from './password-rules.js'
export {
  newSession,
  readSession,
  sessionAllowed,
  sessionToken,
  passwordFingerprint,
  sign,
  unsign,
  type SessionPayload,
} from './tokens.js'
export { checkCsrf, newCsrfToken, csrfSessionOf, isStateChanging, CSRF_HEADER } from './csrf.js'
export { LoginThrottle, SignupThrottle, RequestThrottle } from './login-throttle.js'
export { HashGate, HashGateBusy } from './hash-gate.js'
export { cookieNamesFor, setDashboardCookie, type CookieNames } from './cookies.js'
