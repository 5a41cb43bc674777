export { hashPassword, verifyPassword, dummyHash, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH } from './password.js'
export { newSession, readSession, sessionAllowed, sessionToken, passwordFingerprint, sign, unsign, type SessionPayload } from './tokens.js'
export { checkCsrf, newCsrfToken, csrfSessionOf, isStateChanging, CSRF_COOKIE, CSRF_HEADER } from './csrf.js'
export { LoginThrottle, SignupThrottle } from './login-throttle.js'
