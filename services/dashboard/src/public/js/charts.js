import { fmtNum, h, main } from './core.js'

/** @param {number} max */
export function chartWidth(max) {
  const m = main()
  const pad = 2 * parseFloat(getComputedStyle(m).paddingLeft) + 34
  return Math.max(260, Math.min(max, Math.floor(m.clientWidth - pad)))
}

/**
 * An SVG chart's frame: the bottom axis from x = P and the labels of its top (max) and 0; the caller draws in it.
 * @param {{ W: number, H: number, P: number, max: number, id: string, label: string }} f
 */
export function chartFrame({ W, H, P, max, id, label }) {
  const svg = h('svg', { viewBox: `0 0 ${W} ${H + 20}`, width: '100%', role: 'img', 'aria-label': label, id })
  svg.append(
    h('line', { class: 'axis', x1: P, y1: H, x2: W, y2: H }),
    h('text', { x: 0, y: 12 }, fmtNum(max)),
    h('text', { x: 0, y: H }, '0'),
  )
  return svg
}
