/** The MCP tool-name alphabet, 1–128 characters. */
export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/

/** True when `name` is a valid full or local tool name: alphabet, length, no empty dot segment. */
export function isValidName(name: string): boolean {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) return false
  return !(name.startsWith('.') || name.endsWith('.') || name.includes('..'))
}

const encoder = /* @__PURE__ */ new TextEncoder()

/** FNV-1a 32-bit over the UTF-8 bytes of `text`, as 8 lowercase hex characters. */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5
  for (const byte of encoder.encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/**
 * The LLM-safe name: `.` → `__`; when longer than 64 characters, the first 55 characters of that
 * form + `_` + FNV-1a of the full dotted name.
 */
export function llmName(name: string): string {
  const flat = name.replaceAll('.', '__')
  return flat.length <= 64 ? flat : `${flat.slice(0, 55)}_${fnv1a32(name)}`
}
