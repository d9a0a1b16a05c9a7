import { maskText } from './redact.ts'

/** Longest page-controlled string written into one log line, in UTF-16 code units. */
export const MAX_LOGGED_CHARS = 200

/** C0 and C1 controls, DEL, the Unicode line and paragraph separators, quote and backslash. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\]/g

/**
 * A page- or user-controlled string made safe for one log line: masked (card numbers, CVCs),
 * shortened to {@link MAX_LOGGED_CHARS}, and written as a double-quoted string in which quotes,
 * backslashes and every control or line-separator character are `\uXXXX`/`\"` escapes, so a value
 * can never end the line, start a forged one, or send terminal escape sequences.
 */
export function logString(value: unknown): string {
  const text = maskText(String(value))
  const short = text.length > MAX_LOGGED_CHARS ? `${text.slice(0, MAX_LOGGED_CHARS)}…` : text
  return `"${short.replace(UNSAFE, (c) => (c === '"' || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}"`
}

/** Like {@link logString} without the surrounding quotes, for free text such as an error message. */
export function escapeForLog(value: unknown): string {
  return logString(value).slice(1, -1)
}
