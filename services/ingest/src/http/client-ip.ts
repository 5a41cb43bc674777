// Moved to services/shared so the dashboard resolves client addresses the same way (H14).
export { clientIp } from '../../../shared/src/client-ip.js'
