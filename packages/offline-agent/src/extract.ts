import { correct, keywords, STOPWORDS, stem, VERBS, verbGroup } from './words.ts'

/*
 * Argument extraction for the embedded agent: fills a tool's JSON input schema from the user's
 * message. It reads property names, types, enums and descriptions; it knows no tool names.
 */

type Schema = Record<string, unknown>

/** What the message gave for a schema: the input, and the required paths it could not fill. */
export interface Extraction {
  input: Record<string, unknown>
  missing: string[]
  /** For each missing path with a known set of values (an enum): those values. */
  choices: Record<string, string[]>
  /** For a missing enum path: the word the message named instead, which is not one of the values ("admin"). */
  unknown: Record<string, string>
}

/** How a tool relates to the message being read. */
export interface ExtractContext {
  /** Stemmed words of the tool's name ("orders.cancel" → order, cancel): skipped in names. */
  toolWords: ReadonlySet<string>
  /** Read-only tools get `''` for a required free-text field the message leaves out. */
  readOnly: boolean
  /**
   * Only values the message names outright (quoted, "called X", `title X`), never the words after
   * the verb: for a form filled on the way to its submit, where "create a new challenge" names none.
   */
  explicitOnly?: boolean
}

const CARD_NUMBER = /(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-])/
const CVC = /\b(?:cvc2?|cvv2?|csc|security code)\W{0,3}(\d{3,4})\b/i
const EXPIRY = /\b(0?[1-9]|1[0-2])\s*\/\s*(\d{4}|\d{2})\b/
const EMAIL = /[^\s@<>"']+@[^\s@<>"']+\.[A-Za-z]{2,}/
const QUOTED = /"([^"]+)"|“([^”]+)”|(?:^|\s)'([^']+)'(?=$|[\s.,!?;:])/
const CALLED = /\b(?:called|named|titled)\s+(.+?)\s*(?=$|[.,!?;:]|\s(?:with|and|that|which)\s)/i
const PREPOSITION = /\b(?:of|for|about|matching|containing)\s+(.+?)\s*(?=$|[.,!?;:])/i

const asObject = (v: unknown): Schema | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Schema) : undefined

function typeOf(schema: Schema): string | undefined {
  const t = schema.type
  if (typeof t === 'string') return t
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null')
  if (asObject(schema.properties)) return 'object'
  return undefined
}

function enumOf(schema: Schema): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.filter((v): v is string => typeof v === 'string')
  const options = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined
  const consts = options?.map((o) => asObject(o)?.const).filter((v): v is string => typeof v === 'string')
  return consts && consts.length > 0 ? consts : undefined
}

/** The first enum value the message names (as words, plural-insensitive). */
function findEnum(message: string, values: readonly string[]): string | undefined {
  const stems = values.map((v) => stem(v))
  const said = new Set(
    message
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => correct(stem(w), stems)),
  )
  const lower = ` ${message.toLowerCase().replace(/[^a-z0-9]+/g, ' ')} `
  const exact = values.find((v) => said.has(stem(v)) || lower.includes(` ${v.toLowerCase()} `))
  if (exact !== undefined) return exact
  // A value of several words ("create-challenge") is named when the message has all its words
  // (a verb may end in -ing: "creating").
  const saidWords = new Set(keywords(message).flatMap((w) => (/..ing$/.test(w) ? [w, w.slice(0, -3)] : [w])))
  return values.find((v) => {
    const parts = keywords(v)
    return parts.length > 1 && parts.every((w) => saidWords.has(correct(w, saidWords)))
  })
}

/** The word the message names for an enum field that is none of its values ("go to the admin page" → "admin"). */
function namedInstead(message: string, key: string, context: ExtractContext): string | undefined {
  const keyWords = new Set(key.split(/(?=[A-Z])|[^A-Za-z0-9]+/).map((w) => stem(w)))
  for (const raw of message.split(/[^A-Za-z0-9]+/).filter(Boolean)) {
    const w = stem(raw)
    if (STOPWORDS.has(w) || keyWords.has(w) || /^\d+$/.test(w)) continue
    if (verbGroup(correct(w, VERBS)) !== undefined || context.toolWords.has(correct(w, context.toolWords)))
      continue
    return raw
  }
  return undefined
}

/** Card number, CVC, expiry or e-mail when the property's name (or description) says so. */
function special(message: string, key: string, schema: Schema): string | undefined {
  const about = `${key} ${typeof schema.description === 'string' ? schema.description : ''}`
  const is = (pattern: RegExp) => pattern.test(key) || pattern.test(about)
  if (is(/cvc|cvv|csc|security code/i)) return CVC.exec(message)?.[1]
  if (is(/expir|^exp$/i)) {
    const m = EXPIRY.exec(message)
    return m ? `${m[1]!.padStart(2, '0')}/${m[2]!.slice(-2)}` : undefined
  }
  if (/number|pan/i.test(key) && /card/i.test(about)) return CARD_NUMBER.exec(message)?.[0]
  if (is(/e-?mail/i)) return EMAIL.exec(message)?.[0]
  return undefined
}

const isSpecialKey = (key: string, schema: Schema): boolean =>
  /cvc|cvv|csc|expir|^exp$|e-?mail/i.test(key) ||
  (/number|pan/i.test(key) && /card/i.test(String(schema.description ?? '')))

/** Drops leading/trailing stopwords and tool words; keeps a leading Title Case run ("Chess Openings say" → "Chess Openings"). */
function tidy(phrase: string, toolWords: ReadonlySet<string>): string | undefined {
  const raw = phrase
    .split(/\s+/)
    .map((w) => w.replace(/^["'“”(]+|["'“”),]+$/g, ''))
    .filter(Boolean)
  const skip = (w: string) => STOPWORDS.has(w.toLowerCase()) || toolWords.has(correct(stem(w), toolWords))
  let start = 0
  let end = raw.length
  while (start < end && skip(raw[start]!)) start++
  while (end > start && skip(raw[end - 1]!)) end--
  let out = raw.slice(start, end)
  if (out.length > 1 && /^[A-Z]/.test(out[0]!)) {
    const cut = out.findIndex((w) => !/^[A-Z0-9]/.test(w))
    if (cut > 0) out = out.slice(0, cut)
  }
  const text = out.join(' ').trim()
  return text === '' ? undefined : text
}

/** The words after the message's first verb, minus stopwords and tool words. */
function afterVerb(message: string, toolWords: ReadonlySet<string>): string | undefined {
  for (const clause of message.split(/[.,!?;:]/)) {
    const ws = clause.split(/\s+/).filter(Boolean)
    const at = ws.findIndex((w) => verbGroup(correct(stem(w.replace(/[^A-Za-z]/g, '')), VERBS)) !== undefined)
    if (at === -1) continue
    const found = tidy(ws.slice(at + 1).join(' '), toolWords)
    if (found) return found
  }
  return undefined
}

/**
 * The free text a message names: quoted, "called X", the field's own label (`name Robotics` for
 * `key` "name"), "of/for X", else the words after the verb.
 */
export function primaryText(
  message: string,
  toolWords: ReadonlySet<string>,
  key?: string,
  explicitOnly = false,
): string | undefined {
  const quoted = QUOTED.exec(message)
  if (quoted) return (quoted[1] ?? quoted[2] ?? quoted[3])!.trim()
  const called = CALLED.exec(message)
  if (called) return tidy(called[1]!, toolWords) ?? called[1]!.trim()
  if (key !== undefined) {
    const own = labelled(message, key)
    if (own) return tidy(own.value, toolWords) ?? own.value
  }
  if (explicitOnly) return undefined
  const prep = PREPOSITION.exec(message)
  const fromPrep = prep ? tidy(prep[1]!, toolWords) : undefined
  return fromPrep ?? afterVerb(message, toolWords)
}

/** `<key> "value"` or `<key> value` up to the end of the clause (for secondary text fields), with the matched text. */
function labelled(message: string, key: string): { value: string; matched: string } | undefined {
  const escaped = key.replace(/[^A-Za-z0-9]/g, '')
  if (escaped === '') return undefined
  const m = new RegExp(`\\b${escaped}\\b\\s*(?::|=|is)?\\s*(?:"([^"]+)"|([^.,!?;:]+))`, 'i').exec(message)
  const value = (m?.[1] ?? m?.[2])?.trim()
  return m && value ? { value, matched: m[0] } : undefined
}

/**
 * Fills `schema` (a JSON Schema object) from `message`. Enums take the value the message names;
 * card number, CVC, expiry (normalized to MM/YY) and e-mail fields take their patterns; the first
 * required plain string (else the first plain string) takes the message's free text; other strings
 * only a labelled value (`description "…"`). Nested objects are filled the same way.
 */
export function extractInput(message: string, schema: unknown, context: ExtractContext): Extraction {
  const state = { primaryUsed: false }
  const out: Extraction = { input: {}, missing: [], choices: {}, unknown: {} }
  out.input = fill(message, asObject(schema) ?? {}, '', context, state, out)
  return out
}

function fill(
  message: string,
  schema: Schema,
  prefix: string,
  context: ExtractContext,
  state: { primaryUsed: boolean },
  extraction: Extraction,
): Record<string, unknown> {
  const props = asObject(schema.properties) ?? {}
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [],
  )
  const plain = (key: string) => {
    const p = asObject(props[key]) ?? {}
    return typeOf(p) === 'string' && !enumOf(p) && !isSpecialKey(key, p)
  }
  const primaryKey =
    Object.keys(props).find((k) => required.has(k) && plain(k)) ?? Object.keys(props).find(plain)
  // Secondary text fields take their labelled values first, so the free text never includes them.
  const secondary = new Map<string, string>()
  let rest = message
  for (const key of Object.keys(props)) {
    if (key === primaryKey || !plain(key)) continue
    const found = labelled(message, key)
    if (!found) continue
    secondary.set(key, found.value)
    rest = rest.replace(found.matched, ' ')
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(props)) {
    const p = asObject(value) ?? {}
    const path = prefix + key
    const type = typeOf(p)
    let found: unknown
    const values = enumOf(p)
    if (type === 'object') {
      const inner = fill(message, p, `${path}.`, context, state, extraction)
      if (Object.keys(inner).length > 0 || required.has(key)) out[key] = inner
      continue
    }
    if (values) found = findEnum(message, values)
    else if (type === 'string') {
      found = special(message, key, p)
      if (found === undefined && key === primaryKey && !state.primaryUsed) {
        state.primaryUsed = true
        found = primaryText(rest, context.toolWords, key, context.explicitOnly)
      } else if (found === undefined) found = secondary.get(key)
    } else if (type === 'number' || type === 'integer') {
      const raw = labelled(message, key)?.value.match(/-?\d+(?:\.\d+)?/)?.[0]
      if (raw !== undefined) found = type === 'integer' ? Number.parseInt(raw, 10) : Number(raw)
    }
    if (found === undefined && required.has(key)) {
      const minLength = typeof p.minLength === 'number' ? p.minLength : 0
      if (type === 'string' && !values && context.readOnly && minLength === 0) found = ''
      else {
        extraction.missing.push(path)
        if (values) {
          extraction.choices[path] = values
          const instead = namedInstead(message, key, context)
          if (instead) extraction.unknown[path] = instead
        }
      }
    }
    if (found !== undefined) out[key] = found
  }
  return out
}

/** Words around an answer that are not part of it ("call it", "it's", "please"). */
const FILLER =
  /^(?:(?:ok(?:ay)?|sure|yes|please|well)[\s,]+)*(?:(?:call it|called|named|titled|it'?s|it is|the \w+ is|make it|use|set it to)\s+)?|[\s.!?]+$/gi

/**
 * Reads a reply to the agent's own question "what <fields> should I fill in?" as values for those
 * fields, in the order they were asked: labelled values first (`name Robotics`), then enum values
 * the reply names, then the remaining clauses (split at commas, semicolons, "and", "in") in order
 * for the remaining fields (quoted text stays one clause). Only the asked fields are filled.
 */
export function answerValues(message: string, schema: unknown, fields: readonly string[]): Schema {
  const props = asObject(asObject(schema)?.properties) ?? {}
  const out: Schema = {}
  let rest = message
  for (const key of fields) {
    const found = labelled(rest, key)
    if (!found) continue
    out[key] = found.value
    rest = rest.replace(found.matched, ' ')
  }
  for (const key of fields) {
    const values = key in out ? undefined : enumOf(asObject(props[key]) ?? {})
    const value = values && findEnum(rest, values)
    if (!value) continue
    out[key] = value
    // Each run of signs in the value matches as many signs or fewer in the message ("in-progress": "in
    // progress", "inprogress"); one bounded class per run, so a value full of signs cannot make the search slow.
    const loose = value.replace(/[^A-Za-z0-9]+/g, (run) => `[^A-Za-z0-9]{0,${run.length}}`)
    rest = rest.replace(new RegExp(`\\b${loose}\\b`, 'i'), ' ')
  }
  const clauses: string[] = []
  rest = rest.replace(new RegExp(QUOTED.source, 'g'), (_, a, b, c) => {
    clauses.push(a ?? b ?? c)
    return ' , '
  })
  const unquoted = rest
    .split(/[,;]|\s(?:and|in|with)\s/i)
    .map((c) => c.replace(FILLER, '').trim())
    .filter((c) => c !== '' && !STOPWORDS.has(c.toLowerCase()))
  const ordered = [...clauses, ...unquoted]
  for (const key of fields) {
    if (key in out || ordered.length === 0) continue
    const p = asObject(props[key]) ?? {}
    const type = typeOf(p)
    if (enumOf(p)) continue
    if (type === 'number' || type === 'integer') {
      const raw = ordered[0]!.match(/-?\d+(?:\.\d+)?/)?.[0]
      if (raw === undefined) continue
      ordered.shift()
      out[key] = type === 'integer' ? Number.parseInt(raw, 10) : Number(raw)
    } else if (type === 'string') out[key] = ordered.shift()!
  }
  return out
}
