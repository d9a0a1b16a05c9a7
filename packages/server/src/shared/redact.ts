/**
 * Masking applied before anything reaches the conversation log, the chat stream, a log line or a
 * later prompt. The user may type a card number and CVC into the chat; the agent passes the real
 * values to the page in its `call`, but what is kept only ever holds the masked form.
 *
 * Two layers:
 * - **From the page (exact).** A tool's sensitive input paths, published by the page in its
 *   manifest entry (`sensitivePaths`) and as `writeOnly: true` in its described input schema: every
 *   value at those paths becomes `[redacted]` ({@link maskAtPaths}), and the same values are cut
 *   out of any text stored in that turn ({@link scrub}).
 * - **Heuristics (free text and unknown pages).** Card numbers keep their last 4 digits
 *   (`**** 4242`), CVC-like codes after a keyword become `***` ({@link maskText}); values under
 *   CVC- or password-like keys in any spelling become `[redacted]`, card-number-like JSON numbers
 *   are masked, and anything nested deeper than {@link MAX_MASK_DEPTH} is `[redacted]` whole
 *   ({@link maskValue}).
 *
 * The rules themselves (patterns, word lists, limits) are data in `@toolmark/protocol`, shared with
 * the PHP package.
 */

import {
  CARD_KEY_JOINED_SOURCE,
  CARD_KEY_MIN_DIGITS,
  CARD_MASK_PREFIX,
  CARD_NUMBER_DIGITS,
  CARD_NUMBER_SOURCE,
  CODE_MASK,
  CODE_SOURCE,
  KEY_SPLIT_SOURCE,
  KEY_WORD_STEPS,
  MASKED as MASKED_,
  MAX_MASK_DEPTH as MAX_MASK_DEPTH_,
  MAX_SENSITIVE_PATH_CHARS,
  MAX_SENSITIVE_PATHS,
  MAX_SPLIT_KEY_LENGTH,
  MIN_SECRET_LENGTH,
  PASSWORD_SOURCE,
  SECRET_KEY_JOINED_SOURCE,
  SECRET_KEY_WORDS,
} from '@toolmark/protocol'

/** The placeholder for a masked value (the page's own placeholder, `REDACTED` in core). */
export const MASKED = MASKED_

/** Values nested deeper than this are replaced by {@link MASKED} as a whole (fail closed). */
export const MAX_MASK_DEPTH = MAX_MASK_DEPTH_

const CARD_NUMBER = new RegExp(CARD_NUMBER_SOURCE, 'g')
const CODE = new RegExp(CODE_SOURCE, 'gi')
const PASSWORD = new RegExp(PASSWORD_SOURCE, 'gi')
const KEY_STEPS = KEY_WORD_STEPS.map(([source, to]) => [new RegExp(source, 'g'), to] as const)
const KEY_SPLIT = new RegExp(KEY_SPLIT_SOURCE)
const SECRET_WORDS = new Set(SECRET_KEY_WORDS)
const SECRET_JOINED = new RegExp(SECRET_KEY_JOINED_SOURCE)
const CARD_JOINED = new RegExp(CARD_KEY_JOINED_SOURCE)
const { min: CARD_MIN, max: CARD_MAX } = CARD_NUMBER_DIGITS

/** `**** ` and the last 4 digits. */
const lastFour = (digits: string) => `${CARD_MASK_PREFIX}${digits.slice(-4)}`

/**
 * Masks card-number-like sequences, codes after a CVC or PIN keyword, and passwords written as
 * assignments in free text (the rules of `@toolmark/protocol`'s secrets).
 */
export function maskText(text: string): string {
  return text
    .replace(CARD_NUMBER, (match) => lastFour(match.replace(/\D/g, '')))
    .replace(CODE, (_match, keyword: string, gap: string) => `${keyword}${gap}${CODE_MASK}`)
    .replace(PASSWORD, (_match, keyword: string) => `${keyword}${CODE_MASK}`)
}

/** Splits a key in any spelling (`cardCvc`, `CARD_CVC`, `card-cvc`, `SecurityCode`) into lowercase words. */
function keyWords(key: string): string[] {
  let spaced = key
  for (const [pattern, to] of KEY_STEPS) spaced = spaced.replace(pattern, to)
  return spaced.toLowerCase().split(KEY_SPLIT).filter(Boolean)
}

/** The key's words joined: the key lowercased, all but letters and digits left out (what keyWords(key).join('') is). */
const joinedOf = (key: string): string => key.toLowerCase().replace(/[^a-z0-9]+/g, '')

/** One of the secret words anywhere in a joined key: only then can the key hold it as a word. */
const SECRET_WORD_INSIDE = new RegExp(SECRET_KEY_WORDS.join('|'))

/**
 * True for keys that name a card security code, a PIN or a password in any spelling: `cvc`,
 * `cardCvc`, `CVV2`, `security_code`, `securityCode`, `card-verification-value`, `csc`, `cid`,
 * `pin`, `password`, `newPassword`… A key is split into words only when one of the secret words is
 * in it; past {@link MAX_SPLIT_KEY_LENGTH} such a key is secret without the split.
 */
export function isSensitiveKey(key: string): boolean {
  const joined = joinedOf(key)
  if (SECRET_JOINED.test(joined)) return true
  if (!SECRET_WORD_INSIDE.test(joined)) return false
  return key.length > MAX_SPLIT_KEY_LENGTH || keyWords(key).some((w) => SECRET_WORDS.has(w))
}

/** True for keys that name a card number (`cardNumber`, `card_number`, `pan`). */
function isCardKey(key: string): boolean {
  return CARD_JOINED.test(joinedOf(key))
}

/** A card number under a card-number key, Luhn or not: `**** 4242`; undefined for anything else. */
function maskCardField(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? String(value) : value
  if (typeof text !== 'string' || !/^[\d -]+$/.test(text)) return undefined
  const digits = text.replace(/\D/g, '')
  return digits.length >= CARD_KEY_MIN_DIGITS && digits.length <= CARD_MAX ? lastFour(digits) : undefined
}

/** True when the digits pass the Luhn check (every real card number does). */
function luhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** Options of {@link maskValue}. */
export interface MaskOptions {
  /** Exact values to cut out of every string (see {@link scrub}). */
  secrets?: readonly string[]
}

/**
 * A deep copy of a JSON value with {@link maskText} (and {@link scrub} of `secrets`) applied to
 * strings, values under {@link isSensitiveKey} keys replaced by `[redacted]` whatever their type,
 * integers of 13–19 digits that pass the Luhn check (a card number sent as a JSON number) masked
 * like text, and anything below depth {@link MAX_MASK_DEPTH} replaced by `[redacted]`.
 */
export function maskValue(value: unknown, options: MaskOptions = {}, depth = 0): unknown {
  if (typeof value === 'string') return maskText(scrub(value, options.secrets))
  if (typeof value === 'number') {
    const digits = Number.isInteger(value) && value > 0 ? String(value) : ''
    const card = /^\d+$/.test(digits) && digits.length >= CARD_MIN && digits.length <= CARD_MAX
    return card && luhn(digits) ? lastFour(digits) : value
  }
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_MASK_DEPTH) return MASKED
  if (Array.isArray(value)) return value.map((v) => maskValue(v, options, depth + 1))
  // Object.fromEntries defines each key as its own property: a `__proto__` key stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      v !== null && v !== undefined && isSensitiveKey(key)
        ? MASKED
        : ((isCardKey(key) ? maskCardField(v) : undefined) ?? maskValue(v, options, depth + 1)),
    ]),
  )
}

/** A path pattern (`card.cvc`, `cards[].cvc`, `''`) split into segments; `[]` is any array index. */
function segments(path: string): string[] {
  const out: string[] = []
  if (path === '') return out
  for (const part of path.split('.')) {
    const m = /^([^[\]]*)((?:\[\])*)$/.exec(part)
    if (!m) return ['\u0000invalid']
    if (m[1]) out.push(m[1])
    for (let i = 0; i < m[2]!.length; i += 2) out.push('[]')
  }
  return out
}

function maskAt(value: unknown, path: readonly string[], at: number, depth: number): unknown {
  if (value === undefined) return value
  if (at === path.length) return MASKED
  if (depth >= MAX_MASK_DEPTH || value === null || typeof value !== 'object') return value
  const segment = path[at]!
  if (Array.isArray(value)) {
    if (segment === '[]') return value.map((v) => maskAt(v, path, at + 1, depth + 1))
    const index = /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : -1
    if (index < 0 || index >= value.length) return value
    const copy = value.slice()
    copy[index] = maskAt(value[index], path, at + 1, depth + 1)
    return copy
  }
  if (!Object.hasOwn(value, segment)) return value
  return { ...value, [segment]: maskAt((value as Record<string, unknown>)[segment], path, at + 1, depth + 1) }
}

/** A copy of `value` with `[redacted]` at every sensitive path that holds a value. Never mutates. */
export function maskAtPaths(value: unknown, paths: readonly string[]): unknown {
  let out = value
  for (const path of paths) out = maskAt(out, segments(path), 0, 0)
  return out
}

function collect(value: unknown, path: readonly string[], at: number, depth: number, out: string[]): void {
  if (value === undefined || value === null || depth > MAX_MASK_DEPTH) return
  if (at === path.length) {
    if (typeof value === 'string' || typeof value === 'number') out.push(String(value))
    else if (typeof value === 'object')
      for (const v of Object.values(value)) collect(v, path, at, depth + 1, out)
    return
  }
  if (typeof value !== 'object') return
  const segment = path[at]!
  if (Array.isArray(value) && segment === '[]') {
    for (const v of value) collect(v, path, at + 1, depth + 1, out)
  } else if (Object.hasOwn(value, segment)) {
    collect((value as Record<string, unknown>)[segment], path, at + 1, depth + 1, out)
  }
}

/** The string and number values at the sensitive paths (leaves below them too), for {@link scrub}. */
export function secretsAt(value: unknown, paths: readonly string[]): string[] {
  const out: string[] = []
  for (const path of paths) collect(value, segments(path), 0, 0, out)
  return [...new Set(out.map((s) => s.trim()).filter((s) => s.length >= MIN_SECRET_LENGTH))]
}

/** `text` with every occurrence of each secret (3 characters or more) replaced by `[redacted]`. */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(MASKED)
  }
  return out
}

/**
 * The known secrets plus what the heuristics leave of each (`**** 4242` of a card number): once a
 * value is known to be secret, none of it is kept, not even the last four digits.
 */
export function secretForms(secrets: Iterable<string>): string[] {
  const out = new Set<string>()
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue
    out.add(secret)
    const masked = maskText(secret)
    if (masked !== secret && masked.length >= MIN_SECRET_LENGTH) out.add(masked)
  }
  return [...out]
}

/** A deep copy of a JSON value with {@link scrub} applied to every string value (keys are kept). */
export function scrubValue(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return scrub(value, secrets)
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_MASK_DEPTH) return MASKED
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets, depth + 1))
  // Object.fromEntries defines each key as its own property: a `__proto__` key stays data.
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, scrubValue(v, secrets, depth + 1)]))
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The write-only paths a schema walk found so far; `over` once they passed the limits. */
interface FoundPaths {
  paths: Set<string>
  chars: number
  over: boolean
}

/** Adds `path` within the limits of {@link MAX_SENSITIVE_PATHS} and {@link MAX_SENSITIVE_PATH_CHARS}. */
function addPath(found: FoundPaths, path: string): void {
  if (found.over || found.paths.has(path)) return
  found.chars += path.length
  if (found.paths.size >= MAX_SENSITIVE_PATHS || found.chars > MAX_SENSITIVE_PATH_CHARS) found.over = true
  else found.paths.add(path)
}

function walkSchema(schema: unknown, path: string, depth: number, found: FoundPaths): void {
  if (!isObject(schema) || depth > 32 || found.over) return
  if (schema.writeOnly === true) {
    addPath(found, path)
    return
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[key]
    if (Array.isArray(branches)) for (const b of branches) walkSchema(b, path, depth + 1, found)
  }
  if (isObject(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      if (/^[^.[\]]+$/.test(key)) walkSchema(child, path === '' ? key : `${path}.${key}`, depth + 1, found)
    }
  }
  const items = [schema.items, ...(Array.isArray(schema.prefixItems) ? schema.prefixItems : [])]
  for (const item of items) walkSchema(item, `${path}[]`, depth + 1, found)
}

/** `paths` as a list, or `['']` (the whole input) when they pass {@link MAX_SENSITIVE_PATHS} or its characters. */
function withinLimits(found: FoundPaths): string[] {
  return found.over ? [''] : [...found.paths]
}

/**
 * The sensitive input paths a JSON Schema declares with `writeOnly: true` (`['card.cvc',
 * 'cards[].cvc']`; `''` when the root is write-only), following `properties`, `items`,
 * `prefixItems` and `anyOf`/`oneOf`/`allOf` branches. More than {@link MAX_SENSITIVE_PATHS} paths, or
 * more than {@link MAX_SENSITIVE_PATH_CHARS} characters of them, give `['']`: the whole input.
 */
export function sensitivePathsOf(schema: unknown): string[] {
  const found: FoundPaths = { paths: new Set(), chars: 0, over: false }
  walkSchema(schema, '', 0, found)
  return withinLimits(found)
}

/**
 * One tool's sensitive paths from several sources (its manifest entry, its described schema), within the
 * same limits as {@link sensitivePathsOf}.
 */
export function joinPaths(...lists: ReadonlyArray<readonly string[]>): string[] {
  const found: FoundPaths = { paths: new Set(), chars: 0, over: false }
  for (const list of lists) for (const path of list) addPath(found, path)
  return withinLimits(found)
}

/** The `sensitivePaths` extension of a manifest entry, when it is a list of strings (within {@link joinPaths}'s limits). */
export function declaredPaths(entry: unknown): string[] {
  const list = isObject(entry) ? entry.sensitivePaths : undefined
  return Array.isArray(list) ? joinPaths(list.filter((p): p is string => typeof p === 'string')) : []
}
