// GET /metrics: the service's prom-client registry in the Prometheus text format. A registry that
// fails to render answers 503 with Retry-After in the error shape, as any unavailable answer does.
import type { Answer } from './answer.js'
import { errorAnswer } from './error-body.js'

/** What a service's metrics class gives (a prom-client Registry's metrics() and contentType). */
export interface MetricsSource {
  render(): Promise<string>
  readonly contentType: string
}

export async function metricsAnswer(m: MetricsSource): Promise<Answer> {
  try {
    return { status: 200, type: m.contentType, body: await m.render() }
  } catch {
    return errorAnswer({ code: 'SERVICE_UNAVAILABLE', status: 503, message: 'Metrics are unavailable' })
  }
}
