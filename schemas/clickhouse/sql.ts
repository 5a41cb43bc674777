// Client-side parameter binding for ClickHouse.
//
// Values are rendered into the query text here, as literals with full escaping;
// identifiers (database, table and column names) are validated instead. It was
// written for ClickHouse 18.16, which had no server-side query parameters; every
// supported server has them now (A9); the project's queries still bind here.
//
//   sql`SELECT count() FROM ${ident(db, 'events')} WHERE account_id = ${id}`
//   bind('SELECT * FROM {db:Identifier}.events WHERE user_id = {u}', { db, u })

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

export class SqlBindError extends TypeError {
  readonly code = 'SQL_BIND_ERROR'
  override name = 'SqlBindError'
}

/** A validated identifier (or dotted path of identifiers), rendered bare. */
export class SqlIdentifier {
  readonly text: string
  constructor(parts: string[]) {
    if (parts.length === 0) throw new SqlBindError('identifier: at least one part is required')
    for (const p of parts) assertIdentifier(p)
    this.text = parts.join('.')
  }
  toString(): string {
    return this.text
  }
}

/** Trusted SQL text, inserted verbatim. Never wrap user input in this. */
export class SqlRaw {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

export type SqlValue = string | number | bigint | boolean | Date | null | SqlIdentifier | SqlRaw | readonly SqlValue[]

export function isIdentifier(name: unknown): name is string {
  return typeof name === 'string' && IDENTIFIER.test(name)
}

export function assertIdentifier(name: unknown): string {
  if (!isIdentifier(name)) {
    throw new SqlBindError(`invalid SQL identifier: ${JSON.stringify(name)}`)
  }
  return name
}

/** `ident('db', 'events')` renders `db.events` after validating each part. */
export function ident(...parts: string[]): SqlIdentifier {
  return new SqlIdentifier(parts)
}

export function raw(text: string): SqlRaw {
  return new SqlRaw(text)
}

// The characters escapeString rewrites; most strings (ids, names) have none and are returned as they are.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes are what a ClickHouse literal must escape
const NEEDS_ESCAPE = /[\\'\x00-\x1f\x7f]/

/** Escapes a string's content for use between single quotes. */
export function escapeString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    switch (ch) {
      case '\\':
        out += '\\\\'
        break
      case "'":
        out += "\\'"
        break
      case '\n':
        out += '\\n'
        break
      case '\r':
        out += '\\r'
        break
      case '\t':
        out += '\\t'
        break
      case '\b':
        out += '\\b'
        break
      case '\f':
        out += '\\f'
        break
      default:
        if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0')
        else out += ch
    }
  }
  return out
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** 'YYYY-MM-DD hh:mm:ss' in UTC, the text form of a ClickHouse DateTime('UTC'). */
export function formatDateTime(d: Date | number): string {
  const date = typeof d === 'number' ? new Date(d) : d
  const t = date.getTime()
  if (!Number.isFinite(t)) throw new SqlBindError('invalid Date')
  const y = date.getUTCFullYear()
  if (y < 1970 || y > 2105) throw new SqlBindError(`DateTime out of range: ${date.toISOString()}`)
  return (
    `${y}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  )
}

/** Renders one value as a ClickHouse literal. */
export function literal(v: SqlValue): string {
  if (v === null) return 'NULL'
  if (v instanceof SqlIdentifier || v instanceof SqlRaw) return v.text
  switch (typeof v) {
    case 'string':
      return `'${escapeString(v)}'`
    case 'number':
      if (!Number.isFinite(v)) throw new SqlBindError(`non-finite number: ${v}`)
      return Object.is(v, -0) ? '0' : String(v)
    case 'bigint':
      return v.toString()
    case 'boolean':
      return v ? '1' : '0'
    case 'object':
      if (v instanceof Date) return `'${formatDateTime(v)}'`
      if (Array.isArray(v)) return `[${v.map((x) => literal(x)).join(', ')}]`
      break
  }
  throw new SqlBindError(`unsupported SQL value of type ${describe(v)}`)
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined'
  if (v === null) return 'null'
  if (typeof v === 'object') return v.constructor?.name ?? 'object'
  return typeof v
}

/** Tagged template: each interpolation becomes a literal (or a validated identifier). */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): string {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) {
    out += literal(values[i] as SqlValue) + strings[i + 1]!
  }
  return out
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)(?::(Identifier))?\}/g

/**
 * Replaces `{name}` with the literal for params[name] and `{name:Identifier}` with a
 * validated identifier. A placeholder without a parameter is an error. Placeholders are
 * matched in the trusted query text only; bound values are never re-scanned.
 */
export function bind(query: string, params: Record<string, SqlValue>): string {
  return query.replace(PLACEHOLDER, (_m, name: string, kind: string | undefined) => {
    if (!Object.hasOwn(params, name)) {
      throw new SqlBindError(`missing SQL parameter: ${name}`)
    }
    const v = params[name]
    if (kind === 'Identifier') {
      if (v instanceof SqlIdentifier) return v.text
      return assertIdentifier(v)
    }
    return literal(v as SqlValue)
  })
}
