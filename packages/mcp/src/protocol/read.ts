import { isObject } from './checks.ts'
import { MAX_PAIRING_DEPTH, MAX_PAIRING_MESSAGE } from './messages.ts'

/**
 * One WebSocket frame as a JSON value, bounded: a string (else `'not text'`: a binary frame) of at
 * most `MAX_PAIRING_MESSAGE` characters (`'too large'`), JSON (`'not JSON'`) whose objects and arrays
 * nest at most `MAX_PAIRING_DEPTH` deep (`'too deep'`). Never throws.
 */
export function readFrame(data: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (typeof data !== 'string') return { ok: false, reason: 'not text' }
  if (data.length > MAX_PAIRING_MESSAGE) return { ok: false, reason: 'too large' }
  let value: unknown
  try {
    value = JSON.parse(data)
  } catch {
    return { ok: false, reason: 'not JSON' }
  }
  return tooDeep(value, MAX_PAIRING_DEPTH) ? { ok: false, reason: 'too deep' } : { ok: true, value }
}

/** True when objects and arrays nest deeper than `max` in `value` (the root is depth 1). Iterative. */
function tooDeep(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item
    if (depth > max) return true
    const children = Array.isArray(node) ? node : isObject(node) ? Object.values(node) : []
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
  }
  return false
}
