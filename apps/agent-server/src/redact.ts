/**
 * Masking applied before anything reaches the conversation log. The user may type a card number
 * and CVC into the chat; the agent passes the real values to the page in its `call`, but the
 * stored chat text, tool-call logs and events only ever hold the masked form:
 * card numbers keep their last 4 digits (`**** 4242`), CVC-like codes become `***`, and values
 * under keys named like a CVC become `[redacted]`.
 */

/** 13–19 digits, optionally grouped by spaces or dashes, not glued to other word characters. */
const CARD_NUMBER = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g
/** A CVC keyword followed by 3–4 digits. */
const CVC_CODE = /\b(cvc2?|cvv2?|csc|cid|security code)(\W{0,3})(\d{3,4})\b/gi
const CVC_KEY = /^(cvc2?|cvv2?|csc|cid|security_?code)$/i

/** Masks card-number-like and CVC-like sequences in free text. */
export function maskText(text: string): string {
  return text
    .replace(CARD_NUMBER, (match) => `**** ${match.replace(/\D/g, '').slice(-4)}`)
    .replace(CVC_CODE, (_match, keyword: string, gap: string) => `${keyword}${gap}***`)
}

/** A deep copy of a JSON value with {@link maskText} applied to strings and CVC-like keys redacted. */
export function maskValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value)
  if (value === null || typeof value !== 'object' || depth > 64) return value
  if (Array.isArray(value)) return value.map((v) => maskValue(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    out[key] =
      CVC_KEY.test(key) && (typeof v === 'string' || typeof v === 'number')
        ? '[redacted]'
        : maskValue(v, depth + 1)
  }
  return out
}
