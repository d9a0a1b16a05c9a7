const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** `scheme://host[:port]` exactly as browsers serialize it, or undefined. */
export function normalOrigin(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '' || value === 'null' || value === '*') return undefined
  try {
    const url = new URL(value)
    if (url.origin === 'null' || `${url.origin}` !== value.replace(/\/$/, '')) return undefined
    return url.origin
  } catch {
    return undefined
  }
}

/** The allowlist of page origins, each normalized; throws a TypeError for anything not an origin or for none. */
export function originAllowlist(origins: readonly string[] | undefined): ReadonlySet<string> {
  const allowed = new Set<string>()
  for (const o of origins ?? []) {
    const normal = normalOrigin(o)
    if (!normal) throw new TypeError(`Not an origin (scheme://host[:port]): ${JSON.stringify(o)}`)
    allowed.add(normal)
  }
  if (allowed.size === 0) throw new TypeError('At least one allowed origin is required (never *)')
  return allowed
}

/** True when `host` (a Host header) names a loopback address with exactly `port` (DNS rebinding). */
export function loopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase())
  return m !== null && LOOPBACK.has(m[1]!) && Number(m[2]) === port
}
