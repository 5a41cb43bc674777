// OpenAPI 3.1 document generated from the TypeBox schemas in validation/schemas.ts. The request
// validator (validation/validate.ts) is hand-written for speed and for messages naming every
// problem (H8), so the two can drift: test/contract/openapi.integration.test.ts checks the
// documented request schemas accept valid bodies and refuse the removed forms, and that real
// responses match the documented ones.
import {
  EventBodySchema, BatchBodySchema, SuccessBodySchema, ErrorBodySchema, MAX_NESTING_DEPTH,
} from '../validation/index.js'

let cached: Record<string, unknown> | undefined

const strip = (s: unknown): unknown => JSON.parse(JSON.stringify(s))

export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached
  const rateHeaders = Object.fromEntries(
    ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window'].map((h) => [
      h, { schema: { type: 'integer' }, description: h === 'X-RateLimit-Window' ? 'Window length in seconds, always 60' : h },
    ]),
  )
  const err = (description: string) => ({
    description,
    headers: rateHeaders,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  })
  const errorResponses = {
    '400': err(
      'INVALID_JSON or VALIDATION_ERROR (details.errors: JSON-pointer paths; batches: details.results). ' +
        'Besides the field rules, values that could not be stored are refused, naming the field: an event time ' +
        'stored before 1970-01-01T00:00:00Z (after clock-skew correction), objects and arrays nested more than ' +
        `${MAX_NESTING_DEPTH} levels inside an event, strings or keys with unpaired UTF-16 surrogates, and ` +
        'numbers too large for a 64-bit float. In a batch only the offending item fails.',
    ),
    '401': err('MISSING_AUTH_HEADER, INVALID_KEY_FORMAT or INVALID_API_KEY'),
    '413': err('PAYLOAD_TOO_LARGE (measured after decompression)'),
    '415': err('UNSUPPORTED_MEDIA_TYPE'),
    '429': { ...err('RATE_LIMIT_EXCEEDED, EVENT_RATE_LIMIT_EXCEEDED, MONTHLY_EVENT_LIMIT_EXCEEDED or MONTHLY_TEST_EVENT_LIMIT_EXCEEDED'), headers: { ...rateHeaders, 'Retry-After': { schema: { type: 'integer' } } } },
    '503': { ...err('SERVICE_UNAVAILABLE: Kafka did not acknowledge the records in time, the queue is full or the instance is draining. No item is reported accepted; the records may or may not be stored, so retry after Retry-After with the same message_id (then the item keeps its event_id and is stored once)'), headers: { ...rateHeaders, 'Retry-After': { schema: { type: 'integer' } } } },
  }
  const ok = { description: 'Accepted once Kafka acknowledged every accepted item', headers: rateHeaders, content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessBody' } } } }
  cached = {
    openapi: '3.1.0',
    info: { title: 'Event tracking ingest API', version: '1.0.0' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_live_… or svc_test_… API key' } },
      schemas: {
        EventBody: strip(EventBodySchema),
        BatchBody: strip(BatchBodySchema),
        SuccessBody: strip(SuccessBodySchema),
        ErrorBody: strip(ErrorBodySchema),
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/event': {
        post: {
          summary: 'Record one event',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EventBody' } } } },
          responses: { '200': ok, ...errorResponses },
        },
      },
      '/v1/events': {
        post: {
          summary: 'Record a batch of 1 to 100 events and identifies',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchBody' } } } },
          responses: { '200': ok, ...errorResponses },
        },
      },
    },
  }
  return cached
}
