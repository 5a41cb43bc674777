// Property keys, their types and example values, inferred from sampled JSON objects (event
// properties, user traits). Pure, so it is tested without servers; ClickHouse 18.16 has no JSON
// function that lists an object's keys (A7), so the dashboard samples rows and infers here.

export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null'

export interface KeyDefinition {
  key: string
  /** Types seen for the key, most frequent first. */
  types: JsonType[]
  /** Samples that had the key. */
  seen: number
  /** Up to three distinct example values, as JSON text. */
  examples: string[]
}

/** Keys listed per definition, and distinct examples kept per key. */
export const MAX_KEYS = 50
export const MAX_EXAMPLES = 3
const MAX_EXAMPLE_CHARS = 80

export function jsonType(v: unknown): JsonType {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  const t = typeof v
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object'
}

const exampleText = (v: unknown) => {
  const s = JSON.stringify(v)
  return s.length > MAX_EXAMPLE_CHARS ? s.slice(0, MAX_EXAMPLE_CHARS - 1) + '…' : s
}

/** Merges the top-level keys of each object in `samples` (others are skipped), most common key first. */
export function inferKeys(samples: readonly unknown[]): KeyDefinition[] {
  const byKey = new Map<string, { types: Map<JsonType, number>; seen: number; examples: Set<string> }>()
  for (const o of samples) {
    if (jsonType(o) !== 'object') continue
    for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
      let d = byKey.get(k)
      if (!d) byKey.set(k, (d = { types: new Map(), seen: 0, examples: new Set() }))
      d.seen++
      const t = jsonType(v)
      d.types.set(t, (d.types.get(t) ?? 0) + 1)
      if (d.examples.size < MAX_EXAMPLES && t !== 'null') d.examples.add(exampleText(v))
    }
  }
  return [...byKey]
    .map(([key, d]) => ({
      key,
      seen: d.seen,
      types: [...d.types].sort((a, b) => b[1] - a[1]).map(([t]) => t),
      examples: [...d.examples],
    }))
    .sort((a, b) => b.seen - a.seen || (a.key < b.key ? -1 : 1))
    .slice(0, MAX_KEYS)
}

/** A stored JSON text, or undefined when it is not JSON. */
export function parseStored(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
