import type { JsonSchema, ToolHints } from '../types.ts'

/** What a tool's fingerprint covers: a change to any of these asks again. */
export interface FingerprintedTool {
  /** Full name. */
  name: string
  description: string
  inputSchema: JsonSchema
  hints?: ToolHints | undefined
}

/** JSON with object keys sorted at every depth (undefined values left out), so equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const obj = value as Record<string, unknown>
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
}

/** 32-bit FNV-1a of `text`'s UTF-16 code units from `basis`, as 8 hex digits. */
function fnv1a(text: string, basis: number): string {
  let h = basis
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, '0')
}

/**
 * A stable fingerprint of a tool: 16 hex digits over the canonical JSON of its name, description,
 * input schema and hints. Not a security hash (tool definitions are the app's own code): it tells
 * a changed tool from the one the user approved.
 */
export function toolFingerprint(tool: FingerprintedTool): string {
  const text = canonicalJson({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    hints: tool.hints ?? {},
  })
  return fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x050c5d1f)
}
