// OpenAPI 3.1 document generated from the TypeBox schemas in validation/schemas.ts. The request
// validator (validation/validate.ts) is hand-written for speed and for messages naming every
// problem (H8), so the two can drift: test/contract/openapi.integration.test.ts checks the
// documented request schemas accept valid bodies and refuse the removed forms, and that real
// responses match the documented ones.
import {
  EventBodySchema,
  BatchBodySchema,
  BatchEventItemSchema,
  BatchIdentifyItemSchema,
  SuccessBodySchema,
  ErrorBodySchema,
  PayloadTooLargeBodySchema,
  MAX_NESTING_DEPTH,
} from '../validation/index.js'

type Schema = Record<string, any>

/**
 * A TypeBox schema as a component: plain JSON, without its `$id`, which would make the component
 * its own resource, so that `#/components/...` references inside it would not resolve to this document.
 */
const strip = (s: unknown): Schema => {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Schema
  return rest
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** The request and body schemas; batch items as named kinds joined by a discriminated oneOf. */
function schemas(): Record<string, Schema> {
  const batchBody = strip(BatchBodySchema)
  const batchItem = strip(batchBody.properties.events.items)
  batchBody.properties.events.items = ref('BatchItem')
  return {
    EventBody: strip(EventBodySchema),
    BatchBody: batchBody,
    BatchItem: {
      title: batchItem.title,
      description: batchItem.description,
      oneOf: [ref('BatchEventItem'), ref('BatchIdentifyItem')],
      discriminator: {
        propertyName: 'type',
        mapping: { event: ref('BatchEventItem').$ref, identify: ref('BatchIdentifyItem').$ref },
      },
    },
    BatchEventItem: strip(BatchEventItemSchema),
    BatchIdentifyItem: strip(BatchIdentifyItemSchema),
    SuccessBody: strip(SuccessBodySchema),
    ErrorBody: strip(ErrorBodySchema),
    PayloadTooLargeBody: strip(PayloadTooLargeBodySchema),
  }
}

/** The rate-limit headers every answer carries (H2). */
function rateLimitHeaders(): Record<string, unknown> {
  return Object.fromEntries(
    ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window'].map((h) => [
      h,
      {
        schema: { type: 'integer' },
        description: h === 'X-RateLimit-Window' ? 'Window length in seconds, always 60' : h,
      },
    ]),
  )
}

/** Every error answer of the event endpoints, by status (docs/api.md). */
function errorResponses(rateHeaders: Record<string, unknown>): Record<string, unknown> {
  const err = (description: string, body = 'ErrorBody') => ({
    description,
    headers: rateHeaders,
    content: { 'application/json': { schema: ref(body) } },
  })
  return {
    '400': err(
      'INVALID_JSON, JSON_TOO_COMPLEX (more JSON values than a valid request holds) or VALIDATION_ERROR (details.errors: JSON-pointer paths; batches: details.results). ' +
        'Besides the field rules, values that could not be stored are refused, naming the field: an event time ' +
        'stored before 1970-01-01T00:00:00Z (after clock-skew correction), objects and arrays nested more than ' +
        `${MAX_NESTING_DEPTH} levels inside an event, strings or keys with unpaired UTF-16 surrogates, and ` +
        'numbers too large for a 64-bit float, and a `__proto__` key in any object of an item (H31; at the top level ' +
        'of the body it is INVALID_JSON). In a batch only the offending item fails.',
    ),
    '401': err('MISSING_AUTH_HEADER, INVALID_KEY_FORMAT or INVALID_API_KEY'),
    '403': err(
      'USER_SUPPRESSED: the account erased this user id with suppression (H55; docs/privacy.md). Not retried by clients; nothing is stored and nothing counts against the quota. ' +
        'Answered by /v1/event; in a /v1/events batch each such item fails with USER_SUPPRESSED in details.results while the others are stored (a batch of only such items is 400).',
    ),
    '408': err('REQUEST_TIMEOUT: the body did not arrive within the read timeout; the connection is closed'),
    '413': err(
      "PAYLOAD_TOO_LARGE over the endpoint's limit after decompression, by default 1,000,000 bytes (/v1/event) and 10,000,000 bytes (/v1/events), details.limit_bytes being the limit (H7); also a compressed body inflating past details.max_inflate_ratio times its size)",
      'PayloadTooLargeBody',
    ),
    '415': err(
      'UNSUPPORTED_MEDIA_TYPE: the Content-Type, or a Content-Encoding other than gzip, deflate or br (named in the message)',
    ),
    '429': {
      ...err(
        'RATE_LIMIT_EXCEEDED, EVENT_RATE_LIMIT_EXCEEDED, MONTHLY_EVENT_LIMIT_EXCEEDED, MONTHLY_TEST_EVENT_LIMIT_EXCEEDED or BODY_BYTES_IN_FLIGHT_EXCEEDED',
      ),
      headers: { ...rateHeaders, 'Retry-After': { schema: { type: 'integer' } } },
    },
    '503': {
      ...err(
        'SERVICE_UNAVAILABLE: Kafka did not acknowledge the records in time, the queue is full, the instance is draining or reading as many body bytes as it holds. No item is reported accepted; the records may or may not be stored, so retry after Retry-After with the same message_id (then the item keeps its event_id and is stored once)',
      ),
      headers: { ...rateHeaders, 'Retry-After': { schema: { type: 'integer' } } },
    },
  }
}

/**
 * H7: the codings a body may be sent in; the size limits apply after decompression. Said in the request
 * body's description, not as a header parameter: a header parameter tells clients and fuzzers that
 * `Content-Encoding: br` is valid with any body, while it is valid only with a body compressed that way.
 */
const CONTENT_ENCODING =
  'The body may be compressed, with the request header Content-Encoding: gzip, deflate or br (names are ' +
  'case-insensitive; none means identity), and must then be compressed that way. The body limits apply after ' +
  'decompression (H7); any other coding is 415 naming it.'

/** The document, built anew on each call; the route that serves it keeps the one it built (health-routes.ts). */
export function openApiDocument(): Record<string, unknown> {
  const rateHeaders = rateLimitHeaders()
  const errors = errorResponses(rateHeaders)
  const ok = {
    description: 'Accepted once Kafka acknowledged every accepted item',
    headers: rateHeaders,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessBody' } } },
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Event tracking ingest API', version: '1.0.0' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_live_… or svc_test_… API key' } },
      schemas: schemas(),
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/event': {
        post: {
          summary: 'Record one event',
          requestBody: {
            required: true,
            description: CONTENT_ENCODING,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/EventBody' } } },
          },
          responses: { '200': ok, ...errors },
        },
      },
      '/v1/events': {
        post: {
          summary: 'Record a batch of 1 to 100 events and identifies',
          requestBody: {
            required: true,
            description: CONTENT_ENCODING,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchBody' } } },
          },
          responses: { '200': ok, ...errors },
        },
      },
    },
  }
}
