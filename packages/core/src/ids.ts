/**
 * An unguessable id: `crypto.randomUUID()` where available, else an RFC 4122 v4 UUID built from
 * `crypto.getRandomValues`. Never `Math.random`: without Web Crypto this throws.
 */
export function newId(): string {
  const c = globalThis.crypto
  if (typeof c?.randomUUID === 'function') return c.randomUUID()
  if (typeof c?.getRandomValues !== 'function')
    throw new Error('Toolmark needs Web Crypto (crypto.getRandomValues)')
  return uuidFromBytes(c.getRandomValues(new Uint8Array(16)))
}

/** Formats 16 random bytes as an RFC 4122 version 4 UUID (sets the version and variant bits). */
export function uuidFromBytes(bytes: Uint8Array): string {
  const b = bytes
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  // Each byte as two hex digits, dashes after the 4th, 6th, 8th and 10th.
  return Array.from(b, (x) => (x | 256).toString(16).slice(1))
    .join('')
    .replace(/(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')
}
