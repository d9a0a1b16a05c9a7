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
  let s = ''
  // A dash before bytes 4, 6, 8 and 10 (the bits of 0x550); each byte as two hex digits.
  for (let i = 0; i < 16; i++) s += ((0x550 >> i) & 1 ? '-' : '') + (b[i]! | 256).toString(16).slice(1)
  return s
}
