// A18: the plaintext of a stream-format body. The personal fields are strings or null, several of them
// JSON texts already (properties, context, traits); a JSON object of them escaped every quote again on
// seal and unescaped it on open, the largest share of A15's measured cost. Instead each field in
// PERSONAL_FIELDS order is `-` (null) or `<length in UTF-16 units>:<text>`, with no escaping: sealing
// concatenates, opening slices. Fields only ever append to the list, so a missing trailing field is null.

/** The fields `names` of `record` (strings, null or missing), packed in that order. */
export function packFields(record: Readonly<Record<string, unknown>>, names: readonly string[]): string {
  let out = ''
  for (let i = 0; i < names.length; i++) {
    const v = record[names[i]!] as string | null | undefined
    out += v == null ? '-' : `${v.length}:${v}`
  }
  return out
}

export function unpackFields(text: string, names: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {}
  let at = 0
  for (const name of names) {
    if (at >= text.length) out[name] = null
    else if (text.charCodeAt(at) === 45 /* - */) {
      out[name] = null
      at += 1
    } else {
      const colon = text.indexOf(':', at)
      const len = Number(text.slice(at, colon))
      if (colon < 0 || !Number.isInteger(len)) throw new RangeError('malformed sealed fields')
      out[name] = text.slice(colon + 1, colon + 1 + len)
      at = colon + 1 + len
    }
  }
  return out
}
