import t from 'tap'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { errors } from '../errors.js'
import {
  BatchBodySchema,
  BatchItemSchema,
  ErrorBodySchema,
  EventBodySchema,
  MAX_TRAIT_KEY_LENGTH,
  MAX_TRAIT_KEYS,
  SuccessBodySchema,
  UserSchema,
} from './schemas.js'
import { validateBatch, validateSingle } from './validate.js'

const EventBody = TypeCompiler.Compile(EventBodySchema)
const BatchBody = TypeCompiler.Compile(BatchBodySchema)
const BatchItem = TypeCompiler.Compile(BatchItemSchema)
const SuccessBody = TypeCompiler.Compile(SuccessBodySchema)
const ErrorBody = TypeCompiler.Compile(ErrorBodySchema)

t.test('schemas carry $id, title and description for OpenAPI', async (t) => {
  for (const [s, id] of [
    [EventBodySchema, 'EventBody'],
    [BatchBodySchema, 'BatchBody'],
    [BatchItemSchema, 'BatchItem'],
    [SuccessBodySchema, 'SuccessBody'],
    [ErrorBodySchema, 'ErrorBody'],
    [UserSchema, 'User'],
  ] as const) {
    t.equal(s.$id, id)
    t.type(s.title, 'string')
    t.type(s.description, 'string')
  }
  // Sub-schemas embedded in the bodies have no $id, so one document never repeats an id.
  t.equal((EventBodySchema.properties.user as { $id?: string }).$id, undefined)
  t.equal(BatchBodySchema.properties.events.maxItems, 100)
  t.equal(BatchBodySchema.properties.events.minItems, 1)
})

/** An object of n keys. */
const keys = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]))

// Bodies on which the TypeBox schema and the hand-written validator must agree.
const singles: [string, unknown, boolean][] = [
  ['minimal', { event: 'x', user: { id: 'u' } }, true],
  [
    'full',
    {
      event: 'x',
      user: { id: 'u', email: 'e@x.io', traits: {} },
      timestamp: '2024-01-01T00:00:00+01:00',
      properties: { a: [1] },
      context: {},
      message_id: 'm',
      more: 1,
    },
    true,
  ],
  ['bare user', { event: 'x', user: 'u' }, false],
  ['name only', { name: 'x', user: { id: 'u' } }, false],
  ['empty id', { event: 'x', user: { id: '' } }, false],
  ['long event', { event: 'e'.repeat(256), user: { id: 'u' } }, false],
  ['control char', { event: 'a\u0007', user: { id: 'u' } }, false],
  ['array properties', { event: 'x', user: { id: 'u' }, properties: [] }, false],
  ['null context', { event: 'x', user: { id: 'u' }, context: null }, false],
  ['date only', { event: 'x', user: { id: 'u' }, timestamp: '2024-01-01' }, false],
  ['long message_id', { event: 'x', user: { id: 'u' }, message_id: 'm'.repeat(101) }, false],
  ['numeric email', { event: 'x', user: { id: 'u', email: 1 } }, false],
  // H29: bidirectional controls in names.
  ['RLO in user.id', { event: 'x', user: { id: 'admin\u202Egnp.exe' } }, false],
  ['isolate in event', { event: 'a\u2066b', user: { id: 'u' } }, false],
  ['LRM is not a control', { event: 'a\u200Eb', user: { id: 'u' } }, true],
  // H30: e-mail addresses.
  ['empty email means none', { event: 'x', user: { id: 'u', email: '' } }, true],
  ['email without @', { event: 'x', user: { id: 'u', email: 'nobody' } }, false],
  ['email with a tab', { event: 'x', user: { id: 'u', email: 'a\t@x.io' } }, false],
  ['email with NUL', { event: 'x', user: { id: 'u', email: 'a@x.io\u0000' } }, false],
  ['email with a space', { event: 'x', user: { id: 'u', email: 'a b@x.io' } }, false],
  ['email of 254', { event: 'x', user: { id: 'u', email: `${'a'.repeat(64)}@${'d'.repeat(189)}` } }, true],
  ['email of 255', { event: 'x', user: { id: 'u', email: `${'a'.repeat(64)}@${'d'.repeat(190)}` } }, false],
  // H28: trait keys.
  ['100 trait keys', { event: 'x', user: { id: 'u', traits: keys(100) } }, true],
  ['101 trait keys', { event: 'x', user: { id: 'u', traits: keys(101) } }, false],
  ['trait key of 255', { event: 'x', user: { id: 'u', traits: { ['k'.repeat(255)]: 1 } } }, true],
]

t.test('EventBodySchema agrees with validateSingle', async (t) => {
  for (const [name, body, valid] of singles) {
    t.equal(EventBody.Check(body), valid, `schema: ${name}`)
    t.equal(validateSingle(body).ok, valid, `validator: ${name}`)
  }
})

t.test('BatchItemSchema agrees with batch item validation', async (t) => {
  const items: [string, unknown, boolean][] = [
    ['event', { type: 'event', event: 'x', user: { id: 'u' } }, true],
    ['name', { type: 'event', name: 'x', user: { id: 'u' } }, true],
    ['identify', { type: 'identify', user: { id: 'u', traits: { a: 1 } }, traits: { b: 2 } }, true],
    ['no type', { event: 'x', user: { id: 'u' } }, false],
    ['bad type', { type: 'page', event: 'x', user: { id: 'u' } }, false],
    ['identify traits array', { type: 'identify', user: { id: 'u' }, traits: [] }, false],
    ['bare user', { type: 'identify', user: 'u' }, false],
    // Both names are checked when both are sent, `event` stored.
    ['event and valid name', { type: 'event', event: 'x', name: 'y', user: { id: 'u' } }, true],
    ['event and object name', { type: 'event', event: 'x', name: {}, user: { id: 'u' } }, false],
    ['event and name with a control', { type: 'event', event: 'x', name: 'a\u0007', user: { id: 'u' } }, false],
    ['identify with 101 traits', { type: 'identify', user: { id: 'u' }, traits: keys(101) }, false],
    ['identify with 100 traits', { type: 'identify', user: { id: 'u' }, traits: keys(100) }, true],
  ]
  for (const [name, item, valid] of items) {
    t.equal(BatchItem.Check(item), valid, `schema: ${name}`)
    const r = validateBatch({ sent_at: '2024-01-01T00:00:00Z', events: [item] })
    t.equal(r.ok && r.items[0]!.ok, valid, `validator: ${name}`)
  }
  t.ok(BatchBody.Check({ sent_at: '2024-01-01T00:00:00Z', events: [items[0]![1]] }))
  t.notOk(BatchBody.Check({ sent_at: '2024-01-01T00:00:00Z', events: [] }))
  t.notOk(BatchBody.Check({ events: [items[0]![1]] }))
})

t.test(
  'trait rules TypeBox does not check are in the schema for OpenAPI, and the validator enforces them (H28, H30)',
  async (t) => {
    const traits = (EventBodySchema.properties.user.properties.traits ?? {}) as Record<string, unknown>
    t.equal(traits.maxProperties, MAX_TRAIT_KEYS)
    t.same(traits.propertyNames, { maxLength: MAX_TRAIT_KEY_LENGTH, not: { const: '__proto__' } })
    t.match(String(traits.description), /email/)
    const single = (user: unknown) => validateSingle({ event: 'x', user }).ok
    t.ok(single({ id: 'u', traits: { ['k'.repeat(255)]: 1 } }))
    t.notOk(single({ id: 'u', traits: { ['k'.repeat(256)]: 1 } }), 'a key over 255 characters')
    t.notOk(single({ id: 'u', traits: { email: 'a\nb@x.io' } }), 'traits.email sets the profile e-mail (H10)')
    t.ok(single({ id: 'u', traits: { email: 7 } }), 'a non-string email is only a trait')
  },
)

t.test('success and error body schemas match what the service sends', async (t) => {
  const ok = {
    success: true,
    data: {
      processed_count: 1,
      failed_count: 1,
      results: [
        { index: 0, success: true, event_id: '018f2b4e-6a1b-7c3d-8e4f-0123456789ab' },
        { index: 1, success: false, error: { code: 'VALIDATION_ERROR', message: 'user.id is required' } },
      ],
    },
    events_processed: 1,
  }
  t.ok(SuccessBody.Check(ok))
  t.notOk(SuccessBody.Check({ ...ok, events_processed: undefined }), 'events_processed is required (H12)')
  t.notOk(SuccessBody.Check({ ...ok, success: false }))

  const v = errors.validation({ errors: [{ path: '/user', message: 'm' }] }).toBody()
  t.ok(ErrorBody.Check(v), 'ServiceError.toBody() of a validation error')
  t.ok(ErrorBody.Check(errors.invalidKey().toBody()), 'without details')
  t.notOk(ErrorBody.Check({ success: false, error: 'x', code: 400 }), 'shape 2 is not what we send')
})
