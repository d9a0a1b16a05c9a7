import { ERROR_MESSAGES } from '../codes.ts'
import type { ToolResult } from '../types.ts'

class NotSerializable extends Error {}

const REJECTED_TAGS = /* @__PURE__ */ new Set([
  '[object Map]',
  '[object Set]',
  '[object WeakMap]',
  '[object WeakSet]',
  '[object Promise]',
  '[object ArrayBuffer]',
  '[object SharedArrayBuffer]',
  '[object DataView]',
])

/**
 * A detached JSON copy of `value` with `JSON.stringify` semantics: `toJSON` is honoured (a Date
 * becomes its ISO string), `undefined` properties are dropped, and `undefined` in arrays becomes
 * `null`. Stricter than JSON where JSON would silently lose data: BigInt, functions, symbols,
 * cycles, NaN and ±Infinity, Map, Set, typed arrays and other
 * binary buffers throw. Use `toJsonSafeResult` for results.
 */
export function toJsonSafe(value: unknown): unknown {
  return copy(value, '', undefined, new Set())
}

function copy(value: unknown, key: string, holder: unknown, seen: Set<object>): unknown {
  if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON(key: string): unknown }).toJSON(key)
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new NotSerializable('non-finite number')
      return value
    case 'undefined':
      if (holder === undefined) throw new NotSerializable('top-level undefined')
      return undefined
    case 'function':
    case 'symbol':
      throw new NotSerializable(typeof value)
    case 'bigint':
      throw new NotSerializable('bigint')
  }
  if (value === null) return null
  const obj = value as object
  if (seen.has(obj)) throw new NotSerializable('cycle')
  if (ArrayBuffer.isView(obj) || REJECTED_TAGS.has(Object.prototype.toString.call(obj))) {
    throw new NotSerializable('binary or collection')
  }
  seen.add(obj)
  let out: unknown
  if (Array.isArray(obj)) {
    const arr: unknown[] = new Array(obj.length)
    for (let i = 0; i < obj.length; i++) {
      const v = copy(obj[i], String(i), obj, seen)
      arr[i] = v === undefined ? null : v
    }
    out = arr
  } else {
    const rec: Record<string, unknown> = {}
    for (const k of Object.keys(obj)) {
      const v = copy((obj as Record<string, unknown>)[k], k, obj, seen)
      if (v !== undefined) {
        if (k === '__proto__')
          Object.defineProperty(rec, k, { value: v, enumerable: true, writable: true, configurable: true })
        else rec[k] = v
      }
    }
    out = rec
  }
  seen.delete(obj)
  return out
}

/**
 * The result as it crosses a boundary (bridge, WebMCP, MCP): a detached JSON copy, or
 * `error "Result not serializable"` when it is not JSON-safe. `onFailure` receives the reason.
 */
export function toJsonSafeResult(result: ToolResult, onFailure?: (err: unknown) => void): ToolResult {
  try {
    return copy(result, '', undefined, new Set()) as ToolResult
  } catch (err) {
    onFailure?.(err)
    return { status: 'error', message: ERROR_MESSAGES.notSerializable }
  }
}
