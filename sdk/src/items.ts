// Building batch items from track() and identify() calls. Each item gets its message_id and
// timestamp here, when it is created, so every retry of it carries the same id and the API stores
// it once (H16). Pure functions (ids and time are passed in), unit-tested.
import {
  MAX_MESSAGE_ID_LENGTH,
  MAX_NAME_LENGTH,
  type JsonObject,
  type WireEventItem,
  type WireIdentifyItem,
  type WireUser,
} from './wire.js'

/** A user id, or the user object of the API (id, optional email and traits). */
export type UserInput = string | WireUser

export interface ItemOptions {
  /** Who the event concerns; defaults to the client's user (set by identify() or the `user` option). */
  user?: UserInput
  /** Merged over the client's context for this item. */
  context?: JsonObject
  /** When it happened; defaults to now. */
  timestamp?: Date | string
  /** Your own idempotency key (at most 100 characters); defaults to a random UUID. */
  messageId?: string
}

export interface BuildEnv {
  now: Date
  newId: () => string
  context?: JsonObject
  user?: WireUser
  /** The client's anonymous id, sent on every item so ingest can link it to the known user (H50, H71). */
  anonymousId?: string
}

export function toUser(u: UserInput | undefined): WireUser | undefined {
  if (u === undefined) return undefined
  if (typeof u === 'string') return { id: u }
  if (u && typeof u === 'object') return { ...u }
  throw new TypeError('user must be a string id or an object {id, email?, traits?}')
}

function checkName(what: string, v: unknown): asserts v is string {
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_NAME_LENGTH) {
    throw new TypeError(`${what} must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`)
  }
}

function common(opts: ItemOptions, env: BuildEnv) {
  const messageId = opts.messageId ?? env.newId()
  if (typeof messageId !== 'string' || messageId.length === 0 || messageId.length > MAX_MESSAGE_ID_LENGTH) {
    throw new TypeError(`messageId must be a non-empty string of at most ${MAX_MESSAGE_ID_LENGTH} characters`)
  }
  const ts = opts.timestamp ?? env.now
  const timestamp = ts instanceof Date ? ts.toISOString() : ts
  const context = env.context || opts.context ? { ...env.context, ...opts.context } : undefined
  return { messageId, timestamp, context }
}

export function buildEvent(
  event: string,
  properties: JsonObject | undefined,
  opts: ItemOptions,
  env: BuildEnv,
): WireEventItem {
  checkName('event', event)
  const user = toUser(opts.user) ?? env.user
  if (!user)
    throw new TypeError(
      'track() needs a user: pass options.user, or call identify() or set the client `user` option first',
    )
  checkName('user.id', user.id)
  const c = common(opts, env)
  const item: WireEventItem = { type: 'event', event, user, timestamp: c.timestamp, message_id: c.messageId }
  if (properties !== undefined) item.properties = properties
  if (c.context) item.context = c.context
  if (env.anonymousId !== undefined) item.anonymous_id = env.anonymousId
  return item
}

export function buildIdentify(
  userId: string,
  traits: JsonObject | undefined,
  opts: Omit<ItemOptions, 'user'> & { email?: string },
  env: BuildEnv,
): WireIdentifyItem {
  checkName('userId', userId)
  const c = common(opts, env)
  const user: WireUser = { id: userId }
  if (opts.email !== undefined) user.email = opts.email
  const item: WireIdentifyItem = { type: 'identify', user, timestamp: c.timestamp, message_id: c.messageId }
  if (traits !== undefined) item.traits = traits
  if (c.context) item.context = c.context
  if (env.anonymousId !== undefined) item.anonymous_id = env.anonymousId
  return item
}

/**
 * alias(): an identify of `userId` with no traits whose anonymous id is `previousId`, the identity
 * link previousId -> userId, as Segment's alias is stored (H50). `previousId` may be an anonymous id
 * or a known user id being merged into `userId`.
 */
export function buildAlias(
  previousId: string,
  userId: string,
  opts: Omit<ItemOptions, 'user'>,
  env: BuildEnv,
): WireIdentifyItem {
  checkName('previousId', previousId)
  return buildIdentify(userId, undefined, opts, { ...env, anonymousId: previousId })
}
