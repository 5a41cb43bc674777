// Segment-spec bodies carrying the same events as load.ts's singleEventBody and batchBody, for the
// /v1/track and /v1/batch rows of bench/http-path.ts (docs/api.md Segment-compatible API).

export function segmentTrackBody(): string {
  return JSON.stringify({
    type: 'track',
    event: 'bench_page_viewed',
    userId: 'bench_user_1',
    properties: { path: '/pricing', referrer: 'https://example.com/', value: 42 },
    context: { platform: 'web', app_version: '1.2.3', traits: { plan: 'pro' } },
  })
}

export function segmentBatchBody(n: number): string {
  const sentAt = new Date().toISOString()
  const batch = Array.from({ length: n }, (_, i) => ({
    type: 'track',
    event: 'bench_item_added',
    userId: `bench_user_${i % 17}`,
    timestamp: sentAt,
    properties: { sku: `sku_${i}`, quantity: 1 + (i % 3), price: 9.99 },
    context: { platform: 'web' },
  }))
  return JSON.stringify({ batch, sentAt })
}
