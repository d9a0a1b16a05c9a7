/**
 * Server-safe part of `@toolmark/next`: types and helpers for server components, route handlers and
 * middleware. It imports no client code (no React, no registry), so a server bundle stays clean.
 */
export type {
  Caller,
  FieldChange,
  Manifest,
  ToolHints,
  ToolManifest,
  ToolManifestSummary,
  ToolResult,
} from '@toolmark/core'

/** The parts of Next's `headers()` a helper reads (a `Headers` or `ReadonlyHeaders`). */
export interface HeaderReader {
  get(name: string): string | null
}

/** The parts of Next's `cookies()` a helper reads. */
export interface CookieReader {
  get(name: string): { value: string } | undefined
}

export interface BridgeSettingsInput {
  /** The request's headers (`await headers()`). */
  headers: HeaderReader
  /** The request's cookies (`await cookies()`); needed for `conversationCookie`. */
  cookies?: CookieReader
  /** Path of the bridge WebSocket on this origin. Default `'/toolmark/ws'`. */
  path?: string
  /** Cookie holding the conversation id, sent as `?conversation=`. */
  conversationCookie?: string
  /** Trust `x-forwarded-proto` / `x-forwarded-host` (set only behind a proxy you control). Default false. */
  trustProxy?: boolean
}

/** Connection settings a client component hands to `websocketTransport`. */
export interface BridgeSettings {
  /** `ws://` or `wss://` URL of the bridge socket on the request's own origin. */
  url: string
  /** The conversation id read from `conversationCookie`, if any. */
  conversationId: string | undefined
}

const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/

/**
 * Builds the bridge's WebSocket settings for the request being rendered: same origin as the page
 * (`wss://` when the request came over HTTPS), the conversation id from a cookie. Throws a
 * `TypeError` for a missing or malformed `Host`, so a forged header never becomes a URL.
 */
export function bridgeSettings(input: BridgeSettingsInput): BridgeSettings {
  const { headers, trustProxy = false } = input
  const first = (name: string): string | undefined => headers.get(name)?.split(',')[0]?.trim() || undefined
  const host = (trustProxy ? first('x-forwarded-host') : undefined) ?? first('host')
  if (!host || !HOST.test(host)) throw new TypeError('bridgeSettings: the request has no valid Host header')
  const proto = trustProxy ? first('x-forwarded-proto') : undefined
  const secure = proto === 'https' || (proto === undefined && first('x-forwarded-ssl') === 'on' && trustProxy)
  const path = input.path ?? '/toolmark/ws'
  if (!path.startsWith('/') || path.startsWith('//'))
    throw new TypeError('bridgeSettings: path must start with a single "/"')
  const conversationId = input.conversationCookie
    ? input.cookies?.get(input.conversationCookie)?.value || undefined
    : undefined
  const url = new URL(path, `${secure ? 'wss' : 'ws'}://${host}`)
  if (conversationId !== undefined) url.searchParams.set('conversation', conversationId)
  return { url: url.href, conversationId }
}
