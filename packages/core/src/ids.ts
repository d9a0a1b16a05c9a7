const HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

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
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-'
    s += HEX[b[i]!]
  }
  return s
}
