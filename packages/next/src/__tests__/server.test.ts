// @vitest-environment node
import { describe, expect, it } from 'vitest'
import { bridgeSettings } from '../server.ts'

const headers = (entries: Record<string, string>) => new Headers(entries)
const cookies = (entries: Record<string, string>) => ({
  get: (name: string) => (name in entries ? { value: entries[name]! } : undefined),
})

describe('bridgeSettings', () => {
  it('builds a same-origin ws:// URL with the conversation from a cookie', () => {
    expect(
      bridgeSettings({
        headers: headers({ host: 'localhost:3000' }),
        cookies: cookies({ conversation: 'c 1' }),
        conversationCookie: 'conversation',
      }),
    ).toEqual({ url: 'ws://localhost:3000/toolmark/ws?conversation=c+1', conversationId: 'c 1' })
  })

  it('uses wss:// and the forwarded host only behind a trusted proxy', () => {
    const forwarded = headers({
      host: '10.0.0.2:3000',
      'x-forwarded-host': 'app.example',
      'x-forwarded-proto': 'https',
    })
    expect(bridgeSettings({ headers: forwarded }).url).toBe('ws://10.0.0.2:3000/toolmark/ws')
    expect(bridgeSettings({ headers: forwarded, trustProxy: true, path: '/ws' }).url).toBe(
      'wss://app.example/ws',
    )
  })

  it('refuses a missing or forged Host and a protocol-relative path', () => {
    expect(() => bridgeSettings({ headers: headers({}) })).toThrow(TypeError)
    expect(() => bridgeSettings({ headers: headers({ host: 'evil.example/x?' }) })).toThrow(
      'bridgeSettings: the request has no valid Host header',
    )
    expect(() => bridgeSettings({ headers: headers({ host: 'a' }), path: '//evil.example' })).toThrow(
      TypeError,
    )
  })

  it('a missing conversation cookie gives no conversation id', () => {
    const settings = bridgeSettings({
      headers: headers({ host: 'a' }),
      cookies: cookies({}),
      conversationCookie: 'c',
    })
    expect(settings).toEqual({ url: 'ws://a/toolmark/ws', conversationId: undefined })
  })
})
