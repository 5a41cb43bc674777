// Part (a) of the cluster drill: a Hobby account's key sends `count` requests within one fixed
// minute window (H3), alternating between the two ingest instances, so only a count shared by the
// instances can hold it to the plan's limit. Answers are judged by judgeRateLimit (cluster-report.ts).
import type { LimitAnswer } from './cluster-report.js'

export interface RateLimitPartSettings {
  /** The instances' own URLs (not the load balancer), so both are certain to take requests. */
  instanceUrls: string[]
  key: string
  count: number
  concurrency: number
  /** Start only with at least this many seconds left in the current minute (windows are epoch minutes). */
  minSecondsLeft: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function sendWithinOneWindow(s: RateLimitPartSettings, say: (m: string) => void): Promise<LimitAnswer[]> {
  const left = 60 - ((Date.now() / 1000) % 60)
  if (left < s.minSecondsLeft) {
    say(`rate-limit part: waiting ${left.toFixed(0)} s for the next minute window`)
    await sleep(left * 1000 + 200)
  }
  const answers: LimitAnswer[] = new Array(s.count)
  let next = 0
  const worker = async () => {
    while (next < s.count) {
      const i = next++
      const instance = (i % s.instanceUrls.length) + 1
      answers[i] = await sendOne(s.instanceUrls[instance - 1], s.key, instance, i)
    }
  }
  await Promise.all(Array.from({ length: s.concurrency }, worker))
  return answers
}

async function sendOne(url: string, key: string, instance: number, i: number): Promise<LimitAnswer> {
  try {
    const res = await fetch(`${url}/v1/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        event: 'drill_rate_limit',
        message_id: `rl-${Date.now()}-${i}`,
        user: { id: `rl_user_${i % 7}` },
      }),
      signal: AbortSignal.timeout(30_000),
    })
    const text = await res.text()
    const headers: Record<string, string | null> = {}
    for (const h of [
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'x-ratelimit-window',
      'retry-after',
    ])
      headers[h] = res.headers.get(h)
    let code: string | undefined
    let details: Record<string, unknown> | undefined
    try {
      const body = JSON.parse(text)
      code = body?.error?.code
      details = body?.error?.details
    } catch {
      // not JSON: judged by its status
    }
    return { instance, status: res.status, headers, code, details, at: Date.now() }
  } catch (err) {
    return {
      instance,
      error: (err as Error).name === 'TimeoutError' ? 'timeout' : 'connection',
      headers: {},
      at: Date.now(),
    }
  }
}

/** The instances' `ingest_limiter_fallback_total` summed (read from their admin listeners, H36): limiter checks an instance answered alone
 * because Redis did not answer in time. Undefined when an instance does not export it (no Redis support). */
export async function limiterFallbacks(adminUrls: string[]): Promise<number | undefined> {
  let sum = 0
  for (const url of adminUrls) {
    try {
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })
      const m = /^ingest_limiter_fallback_total(?:\{[^}]*\})? (\d+(?:\.\d+)?)$/m.exec(await res.text())
      if (!m) return undefined
      sum += Number(m[1])
    } catch {
      return undefined
    }
  }
  return sum
}
