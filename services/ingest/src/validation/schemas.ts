// TypeBox schemas of the ingest HTTP bodies (docs/api.md field tables, H8-H12, H16).
// They document the wire contract and feed the OpenAPI 3.1 document; the hot-path checks
// in validate.ts are written by hand for precise messages and speed. Both take their bounds and
// patterns from rules.ts (H64), and rules.test.ts checks that both agree at every bound.
// Unknown extra fields are allowed everywhere (clients send more than we read).
import { CloneType, Type, type Static, type TSchema } from '@sinclair/typebox'
import { BODY_RULES } from './rules.js'

// The rules' constants, for the modules and tests that read them beside the schemas.
export * from './rules.js'

/** H31: no object of an event or a body may have a key `__proto__` (the service refuses it). */
const NOT_PROTO = { not: { const: '__proto__' } }

const withId = <T extends TSchema>(schema: T, $id: string): T => CloneType(schema, { $id })

const Name = (description: string) =>
  Type.String({
    ...BODY_RULES.name,
    description: `${description} Non-empty, at most ${BODY_RULES.name.maxLength} characters, no control characters and no bidirectional controls U+202A-U+202E, U+2066-U+2069 (H9, H29).`,
  })

const TIME_FORMAT =
  'ISO 8601 date-time of exactly this form: YYYY-MM-DDThh:mm:ss, then optionally a fraction of 1 to 9 digits ' +
  '(read to the millisecond), then optionally Z or ±hh:mm; no offset means UTC. Refused: a date alone, a space ' +
  'for the T, ±hhmm or ±hh offsets, lowercase t or z, leap seconds.'

const Timestamp = (description: string) =>
  Type.String({
    ...BODY_RULES.timestamp,
    description: `${description} ${TIME_FORMAT}`,
    examples: ['2024-05-01T12:30:00.000Z'],
  })

const SentAt = Type.String({
  ...BODY_RULES.sentAt,
  description: `Time the client sent the batch, used to correct item timestamps for clock skew (H13). ${TIME_FORMAT} Any year from 0000 to 9999.`,
  examples: ['2024-05-01T12:30:00.000Z'],
})

const Email = (description: string) =>
  Type.String({
    ...BODY_RULES.email,
    description: `${description} A plausible address (local@domain, no white space, no control characters), at most ${BODY_RULES.email.maxLength} characters; an empty string means none (H30).`,
  })

const JsonObject = (title: string, description: string, options: Record<string, unknown> = {}) =>
  Type.Object(
    {},
    {
      title,
      description: `${description} Objects and arrays nest at most ${BODY_RULES.event.maxDepth} levels inside an event; no string or key may hold an unpaired UTF-16 surrogate.`,
      additionalProperties: true,
      propertyNames: NOT_PROTO,
      ...options,
    },
  )

/** H28: at most BODY_RULES.traits.maxKeys keys of at most BODY_RULES.traits.maxKeyLength characters. */
const TraitsObject = (title: string, description: string) =>
  JsonObject(
    title,
    `${description} At most ${BODY_RULES.traits.maxKeys} top-level keys, each at most ${BODY_RULES.traits.maxKeyLength} characters (H28). ` +
      'A string `email` sets the profile e-mail (H10) and must then be an address as user.email is (H30).',
    {
      maxProperties: BODY_RULES.traits.maxKeys,
      propertyNames: { maxLength: BODY_RULES.traits.maxKeyLength, ...NOT_PROTO },
    },
  )

const Traits = TraitsObject('Traits', 'Persistent user attributes (plan, company, created_at and the like).')
const Properties = JsonObject('Properties', 'Event-specific data.')
const Context = JsonObject(
  'Context',
  'Client-supplied context (platform, app_version, ...). The server adds ip and user_agent, which win over client values (H14).',
)
const MessageId = Type.String({
  ...BODY_RULES.messageId,
  description: `Optional client message id (1 to ${BODY_RULES.messageId.maxLength} characters). The event_id is derived from the account, the key's environment (live or test) and the message_id, so a retry with the same message_id is stored once (H16).`,
})

const AnonymousId = Name(
  "The visitor's anonymous id (a browser's or device's id from before they were known; H52, H71). With an identify, it links the anonymous id to user.id (H50).",
)

const User = Type.Object(
  {
    id: Name('Unique user identifier.'),
    email: Type.Optional(Email('User e-mail address; sets the profile e-mail (H10).')),
    traits: Type.Optional(Traits),
  },
  {
    title: 'User',
    description: 'The user an event concerns. Must be an object with id; the bare-string form was removed in v1.',
    additionalProperties: true,
    propertyNames: NOT_PROTO,
  },
)
export const UserSchema = withId(User, 'User')

/** POST /v1/event body. */
export const EventBodySchema = Type.Object(
  {
    event: Name('Event name, snake_case recommended (object_action).'),
    user: User,
    timestamp: Type.Optional(
      Timestamp(
        'Event time; defaults to the time of receipt. Must not be before 1970-01-01T00:00:00Z (400); more than 24 h ahead of receipt it is replaced by the time of receipt and flagged (H13).',
      ),
    ),
    properties: Type.Optional(Properties),
    context: Type.Optional(Context),
    message_id: Type.Optional(MessageId),
    anonymous_id: Type.Optional(AnonymousId),
  },
  {
    $id: 'EventBody',
    title: 'Event',
    description: 'One event (POST /v1/event). The event name field is `event`; `name` is accepted only in batch items.',
    additionalProperties: true,
    propertyNames: NOT_PROTO,
  },
)

const batchEventItem = Type.Object(
  {
    type: Type.Literal('event'),
    event: Type.Optional(Name('Event name. One of `event` or `name` is required (H10).')),
    name: Type.Optional(Name('Event name, alternative spelling of `event` (H10).')),
    user: User,
    timestamp: Type.Optional(
      Timestamp(
        'Event time; corrected for clock skew with the batch sent_at (H13). The corrected time must not be before 1970-01-01T00:00:00Z, or the item fails.',
      ),
    ),
    properties: Type.Optional(Properties),
    context: Type.Optional(Context),
    message_id: Type.Optional(MessageId),
    anonymous_id: Type.Optional(AnonymousId),
  },
  {
    title: 'BatchEventItem',
    description: 'A batch item recording an event. Either `event` or `name` carries the event name (H10).',
    additionalProperties: true,
    propertyNames: NOT_PROTO,
    anyOf: [{ required: ['event'] }, { required: ['name'] }],
  },
)

const batchIdentifyItem = Type.Object(
  {
    type: Type.Literal('identify'),
    user: User,
    traits: Type.Optional(
      TraitsObject(
        'Traits',
        'Traits at the top level; merged with user.traits, the top level winning (H10); the cap below holds for the merged keys.',
      ),
    ),
    timestamp: Type.Optional(Timestamp('Time of the identify; corrected and bounded like event times (H13).')),
    context: Type.Optional(Context),
    message_id: Type.Optional(MessageId),
    anonymous_id: Type.Optional(AnonymousId),
  },
  {
    title: 'BatchIdentifyItem',
    description:
      'A batch item updating the user profile; creates no event. `email` in traits or user.email sets the profile email (H10).',
    additionalProperties: true,
    propertyNames: NOT_PROTO,
  },
)

// The OpenAPI document (http/openapi.ts) names the two item kinds as components and joins them in
// a oneOf with a discriminator mapping `type` to each, which code generators need to type items.
const batchItem = Type.Union([batchEventItem, batchIdentifyItem], {
  title: 'BatchItem',
  description: 'One batch item, of type event or identify.',
})

export const BatchItemSchema = withId(batchItem, 'BatchItem')
export const BatchEventItemSchema = withId(batchEventItem, 'BatchEventItem')
export const BatchIdentifyItemSchema = withId(batchIdentifyItem, 'BatchIdentifyItem')

/** POST /v1/events body. */
export const BatchBodySchema = Type.Object(
  {
    sent_at: SentAt,
    events: Type.Array(batchItem, {
      ...BODY_RULES.batch,
      description: `1 to ${BODY_RULES.batch.maxItems} items.`,
    }),
  },
  {
    $id: 'BatchBody',
    title: 'Batch',
    description: 'A batch of events and identifies (POST /v1/events).',
    additionalProperties: true,
    propertyNames: NOT_PROTO,
  },
)

const itemError = Type.Object(
  { code: Type.String(), message: Type.String() },
  { title: 'ItemError', description: 'Why one batch item failed (H11).' },
)

const itemResult = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Zero-based position of the item in the request.' }),
    success: Type.Boolean({ description: 'Whether the item was accepted.' }),
    event_id: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
        description:
          'UUID of the stored record, present on success (UUIDv7, or UUIDv5 of account, environment and message_id: H12, H16).',
      }),
    ),
    error: Type.Optional(itemError),
  },
  { title: 'ItemResult', description: 'Result of one item.' },
)

/** Shape A plus events_processed (shape B), so clients written against either documented shape work (docs/api.md Success, H12). */
export const SuccessBodySchema = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      processed_count: Type.Integer({ minimum: 0, description: 'Items accepted.' }),
      failed_count: Type.Integer({ minimum: 0, description: 'Items rejected.' }),
      results: Type.Array(itemResult, { description: 'One result per item, in request order (H11).' }),
    }),
    events_processed: Type.Integer({ minimum: 0, description: 'Same as data.processed_count (shape B).' }),
  },
  { $id: 'SuccessBody', title: 'Success', description: 'Body of a 200 answer from /v1/event and /v1/events (H12).' },
)

const fieldError = Type.Object(
  {
    path: Type.String({ description: 'JSON pointer into the request body, e.g. /events/3/user/id.' }),
    message: Type.String(),
  },
  { title: 'FieldError' },
)

/** Shape 1 of docs/api.md's Errors section, with `details` as given. */
const errorShape = <D extends TSchema>(
  codeDescription: string,
  details: D,
  options: { $id: string; title: string; description: string },
) =>
  Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({ code: Type.String({ description: codeDescription }), message: Type.String(), details }),
    },
    options,
  )

/** Shape 1 of docs/api.md's Errors section. */
export const ErrorBodySchema = errorShape(
  'Error code, e.g. VALIDATION_ERROR or RATE_LIMIT_EXCEEDED.',
  Type.Optional(
    Type.Object(
      {
        errors: Type.Optional(Type.Array(fieldError, { description: 'Validation problems, all at once (H8).' })),
        results: Type.Optional(Type.Array(itemResult, { description: 'Per-item results of a rejected batch (H11).' })),
      },
      { additionalProperties: true, description: 'Present for rate-limit and validation errors.' },
    ),
  ),
  { $id: 'ErrorBody', title: 'Error', description: 'Error body, shape 1 (H8, H11).' },
)

/** 413 PAYLOAD_TOO_LARGE: the error body, with the limit the body exceeded (H7). */
export const PayloadTooLargeBodySchema = errorShape(
  'PAYLOAD_TOO_LARGE',
  Type.Object(
    {
      limit_bytes: Type.Integer({
        minimum: 1,
        description: 'The body limit of this endpoint in bytes, after decompression.',
      }),
    },
    { additionalProperties: true },
  ),
  { $id: 'PayloadTooLargeBody', title: 'PayloadTooLarge', description: 'Error body of a 413 (H7).' },
)

export type EventBody = Static<typeof EventBodySchema>
export type BatchBody = Static<typeof BatchBodySchema>
export type SuccessBody = Static<typeof SuccessBodySchema>
export type ErrorBody = Static<typeof ErrorBodySchema>
