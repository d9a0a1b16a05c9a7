import { MAX_PAIRING_ID } from './messages.ts'

/*
 * The checks both directions share. Each one is what a JSON Schema keyword of `schemas.ts` says, so
 * that the validator and the schemas accept exactly the same messages (a test runs both over the
 * fixtures).
 */

/** A plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The first key of `value` that `allowed` does not list, quoted for a reason (JSON-escaped, cut to 64
 * characters: a hostile key cannot flood or break a log line), or undefined when there is none.
 */
export function unknownKey(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  for (const key in value) {
    if (!allowed.includes(key)) return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)
  }
  return undefined
}

/** `^[A-Za-z0-9_-]{1,256}$`: call ids, resume tokens. */
export function isToken(value: unknown): boolean {
  return typeof value === 'string' && value.length <= MAX_PAIRING_ID && /^[A-Za-z0-9_-]+$/.test(value)
}

/** `^[A-Za-z0-9_.-]{1,128}$`: a full tool name. */
export function isToolName(value: unknown): boolean {
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,128}$/.test(value)
}

/** An integer in [0, Number.MAX_SAFE_INTEGER]: revisions, epoch milliseconds. */
export function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** The message's `type` problem: unknown, of the other direction, or not a string. */
export function typeProblem(type: unknown, other: readonly string[], otherName: string): string {
  if (typeof type !== 'string') return 'missing or non-string type'
  return other.includes(type) ? `wrong direction: a ${otherName} message` : 'unknown message type'
}

/** Most fields a confirmation may offer for editing. */
export const MAX_CONFIRM_FIELDS = 64

/**
 * A confirmation's editable fields: at most 64 names matching `^[A-Za-z0-9_.-]{1,64}$`, each a
 * string, a number or a boolean.
 */
export function isFields(value: unknown): boolean {
  if (!isObject(value)) return false
  const keys = Object.keys(value)
  return (
    keys.length <= MAX_CONFIRM_FIELDS &&
    keys.every(
      (k) => /^[A-Za-z0-9_.-]{1,64}$/.test(k) && ['string', 'number', 'boolean'].includes(typeof value[k]),
    )
  )
}

/** A string of `min` to `max` Unicode code points (what JSON Schema's minLength/maxLength count). */
export function isText(value: unknown, min: number, max: number): boolean {
  if (typeof value !== 'string') return false
  const n = [...value].length
  return n >= min && n <= max
}
