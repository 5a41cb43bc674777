import { main } from './core.js'

/** @param {number} max */
export function chartWidth(max) {
  const m = main()
  const pad = 2 * parseFloat(getComputedStyle(m).paddingLeft) + 34
  return Math.max(260, Math.min(max, Math.floor(m.clientWidth - pad)))
}
